package dev.idem.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.brokers.testing.AppliedEvents;
import dev.idem.brokers.testing.AppliedEvents_Idempotent;
import dev.idem.brokers.testing.EffectsTable;
import dev.idem.brokers.testing.KafkaTestBroker;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.OutboxMessage;
import dev.idem.runtime.PublishOutcome;
import dev.idem.testing.IsolatedDatabase;
import dev.idem.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The consumer against a KRaft broker in this JVM and a generated {@code @IdempotentCommand} on H2: events published
 * by the outbox publisher (some twice, as a relay that died before marking them sent would), consumers killed after
 * their handler's commit and before the offset commit, a second member joining and leaving the group: every event
 * takes effect exactly once, and the group's offsets end at the end of the topic.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IdempotentKafkaConsumerTest {

  private static final int EVENTS = 150;
  private static final int PARTITIONS = 3;

  /** What a process killed at that point would leave: the handler's commit, no offset commit. */
  static final class Killed extends Error {
    Killed(String messageId) {
      super("killed after committing " + messageId + ", before the offset commit");
    }
  }

  private KafkaTestBroker broker;
  private IsolatedDatabase database;
  private EffectsTable effects;
  private AppliedEvents events;

  @BeforeAll
  void start() {
    broker = KafkaTestBroker.start();
    database = IsolatedDatabase.open(TestDatabase.H2);
    IdemRuntime runtime = IdemRuntime.builder().dataSource(database.dataSource()).build();
    runtime.createSchema();
    effects = new EffectsTable(runtime);
    events = new AppliedEvents_Idempotent(effects, runtime);
  }

  @AfterAll
  void stop() {
    if (broker != null) {
      broker.close();
    }
    if (database != null) {
      database.close();
    }
  }

  @ParameterizedTest(name = "batches: {0}")
  @ValueSource(booleans = {false, true})
  void consumersKilledBetweenCommitAndOffsetCommitHaveTheirRedeliveriesDeduplicated(boolean batches)
      throws Exception {
    String topic = "idem-test-" + UUID.randomUUID();
    broker.createTopic(topic, PARTITIONS);
    String group = "group-" + UUID.randomUUID();
    List<OutboxMessage> published = publish(topic);
    Set<String> killPoints = ConcurrentHashMap.newKeySet();
    killPoints.addAll(List.of(published.get(20).messageId(), published.get(80).messageId(),
        published.get(140).messageId()));

    int kills = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (true) {
      IdempotentKafkaConsumer consumer = start(topic, group, batches, killPoints);
      boolean killed = awaitKilledOrDone(consumer, group, topic, deadline);
      consumer.close();
      if (!killed) {
        break;
      }
      assertTrue(consumer.failure() instanceof Killed, String.valueOf(consumer.failure()));
      kills++;
    }
    assertTrue(kills >= 1 && killPoints.size() == 3 - kills, "killed at the kill points: " + kills);
    assertEquals(EVENTS, effects.effects(group), "one effect per event, though " + (EVENTS + EVENTS / 10)
        + " records were published");
    assertEquals(EVENTS, effects.distinctMessages(group));
    assertEquals(endOffsets(topic), committedOffsets(group, topic), "everything committed");
  }

  @Test
  void aRebalanceInTheMiddleLosesAndDoublesNothing() throws Exception {
    String topic = "idem-test-" + UUID.randomUUID();
    broker.createTopic(topic, PARTITIONS);
    String group = "group-" + UUID.randomUUID();
    publish(topic);
    AtomicInteger calls = new AtomicInteger();
    Set<String> none = ConcurrentHashMap.newKeySet();
    IdempotentKafkaConsumer first = startSlow(topic, group, calls, none);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (calls.get() < 30 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    IdempotentKafkaConsumer second = startSlow(topic, group, calls, none); // joins: partitions move
    while (calls.get() < 80 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    first.close(); // leaves: its partitions move to the second, after it committed on revoke
    try {
      assertTrue(first.failure() == null, String.valueOf(first.failure()));
      while (!committedOffsets(group, topic).equals(endOffsets(topic)) && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
    } finally {
      second.close();
    }
    assertEquals(EVENTS, effects.effects(group));
    assertEquals(EVENTS, effects.distinctMessages(group));
    assertEquals(endOffsets(topic), committedOffsets(group, topic));
  }

  @Test
  void aFailingHandlerHasItsRecordsAgainInOrder() throws Exception {
    String topic = "idem-test-" + UUID.randomUUID();
    broker.createTopic(topic, 1);
    String group = "group-" + UUID.randomUUID();
    List<OutboxMessage> published = publish(topic);
    List<String> seen = java.util.Collections.synchronizedList(new ArrayList<>());
    AtomicInteger failures = new AtomicInteger();
    IdempotentKafkaConsumer consumer = IdempotentKafkaConsumer
        .builder(config(group), List.of(topic))
        .retryBackoff(Duration.ofMillis(10))
        .start(message -> {
          if (message.valueText().equals("{\"order\":50}") && failures.incrementAndGet() <= 2) {
            throw new IllegalStateException("database down");
          }
          events.apply(new AppliedEvents.Event(message.messageId(), message.valueText()), message.group());
          seen.add(message.messageId());
        });
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!committedOffsets(group, topic).equals(endOffsets(topic)) && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
    } finally {
      consumer.close();
    }
    assertEquals(3, failures.get());
    assertEquals(2, consumer.retried());
    assertEquals(EVENTS, effects.distinctMessages(group));
    List<String> firstSeen = seen.stream().distinct().toList();
    assertEquals(published.stream().map(OutboxMessage::messageId).toList(), firstSeen, "in order, none skipped");
  }

  @Test
  void aBatchWithAReusedIdIsHandledOneByOneAndOnlyTheReusedIdIsSkipped() throws Exception {
    String topic = "idem-test-" + UUID.randomUUID();
    broker.createTopic(topic, 1);
    String group = "group-" + UUID.randomUUID();
    String reused = UUID.randomUUID().toString();
    List<OutboxMessage> records = List.of(
        new OutboxMessage(reused, topic, "k", "OrderPaid", Map.of(), "{\"amount\":1}", Instant.now()),
        new OutboxMessage(UUID.randomUUID().toString(), topic, "k", "OrderPaid", Map.of(), "{}", Instant.now()),
        // The same id with other content: the claim refuses it (IdempotencyKeyReusedException).
        new OutboxMessage(reused, topic, "k", "OrderPaid", Map.of(), "{\"amount\":2}", Instant.now()),
        new OutboxMessage(UUID.randomUUID().toString(), topic, "k", "OrderPaid", Map.of(), "{}", Instant.now()));
    try (KafkaOutboxPublisher publisher =
             KafkaOutboxPublisher.builder(Map.of("bootstrap.servers", broker.bootstrapServers())).build()) {
      for (PublishOutcome outcome : publisher.publish(records)) {
        assertEquals(PublishOutcome.Status.SENT, outcome.status(), String.valueOf(outcome));
      }
    }
    IdempotentKafkaConsumer consumer = IdempotentKafkaConsumer.builder(config(group), List.of(topic))
        .startBatches(messages -> events.applyAll(messages.stream()
            .map(m -> new AppliedEvents.Event(m.messageId(), m.valueText())).toList(), group));
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!committedOffsets(group, topic).equals(endOffsets(topic)) && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
    } finally {
      consumer.close();
    }
    assertEquals(1, consumer.rejected(), "only the reused id was skipped");
    assertEquals(3, effects.effects(group));
    assertEquals(endOffsets(topic), committedOffsets(group, topic), "and committed past");
  }

  @Test
  void settingsThatWouldCommitBeforeTheHandlerAreRefused() {
    IllegalArgumentException error = assertThrows(IllegalArgumentException.class, () -> IdempotentKafkaConsumer
        .builder(Map.of("bootstrap.servers", "x:1", "group.id", "g", "enable.auto.commit", "true"), List.of("t")));
    assertTrue(error.getMessage().contains("enable.auto.commit"), error.getMessage());
    assertEquals("consumerConfig needs group.id", assertThrows(IllegalArgumentException.class,
        () -> IdempotentKafkaConsumer.builder(Map.of("bootstrap.servers", "x:1"), List.of("t"))).getMessage());
  }

  private IdempotentKafkaConsumer start(String topic, String group, boolean batches, Set<String> killPoints) {
    IdempotentKafkaConsumer.Builder builder =
        IdempotentKafkaConsumer.builder(config(group), List.of(topic)).retryBackoff(Duration.ZERO);
    if (batches) {
      return builder.startBatches(messages -> {
        events.applyAll(messages.stream()
            .map(m -> new AppliedEvents.Event(m.messageId(), m.valueText())).toList(), group);
        killIfAt(killPoints, messages);
      });
    }
    return builder.start(message -> {
      events.apply(new AppliedEvents.Event(message.messageId(), message.valueText()), message.group());
      killIfAt(killPoints, List.of(message));
    });
  }

  private IdempotentKafkaConsumer startSlow(String topic, String group, AtomicInteger calls, Set<String> none) {
    return IdempotentKafkaConsumer.builder(config(group), List.of(topic)).start(message -> {
      events.apply(new AppliedEvents.Event(message.messageId(), message.valueText()), message.group());
      calls.incrementAndGet();
      Thread.sleep(10);
    });
  }

  private Map<String, Object> config(String group) {
    return Map.of("bootstrap.servers", broker.bootstrapServers(), "group.id", group, "max.poll.records", "20");
  }

  private static void killIfAt(Set<String> killPoints, List<KafkaMessage> committed) {
    for (KafkaMessage message : committed) {
      if (killPoints.remove(message.messageId())) {
        throw new Killed(message.messageId());
      }
    }
  }

  /** Publishes EVENTS events through the outbox publisher, every tenth one twice (a relay's at-least-once). */
  private List<OutboxMessage> publish(String topic) throws InterruptedException {
    List<OutboxMessage> all = new ArrayList<>();
    List<OutboxMessage> distinct = new ArrayList<>();
    for (int i = 0; i < EVENTS; i++) {
      OutboxMessage message = new OutboxMessage(UUID.randomUUID().toString(), topic, "order-" + (i % 7),
          "OrderPaid", Map.of(), "{\"order\":" + i + "}", Instant.now());
      distinct.add(message);
      all.add(message);
      if (i % 10 == 9) {
        all.add(distinct.get(i - 5));
      }
    }
    try (KafkaOutboxPublisher publisher =
             KafkaOutboxPublisher.builder(Map.of("bootstrap.servers", broker.bootstrapServers())).build()) {
      // As the relay does: what comes back RETRY (a batch that expired on a loaded machine) is published again.
      // A record that went out and is published again is one more redelivery for the consumer to deduplicate.
      List<OutboxMessage> pending = all;
      for (int attempt = 1; !pending.isEmpty(); attempt++) {
        List<PublishOutcome> outcomes = publisher.publish(pending);
        List<OutboxMessage> retry = new ArrayList<>();
        for (int i = 0; i < outcomes.size(); i++) {
          PublishOutcome outcome = outcomes.get(i);
          if (outcome.status() == PublishOutcome.Status.RETRY && attempt < 3) {
            retry.add(pending.get(i));
          } else {
            assertEquals(PublishOutcome.Status.SENT, outcome.status(), String.valueOf(outcome));
          }
        }
        pending = retry;
      }
    }
    return distinct;
  }

  private boolean awaitKilledOrDone(IdempotentKafkaConsumer consumer, String group, String topic, long deadline)
      throws Exception {
    while (System.nanoTime() < deadline) {
      if (consumer.failure() != null) {
        assertTrue(consumer.awaitStop(Duration.ofSeconds(20)));
        return true;
      }
      if (committedOffsets(group, topic).equals(endOffsets(topic))) {
        return false;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("the consumer did not finish in time; handled " + consumer.handled());
  }

  private Map<TopicPartition, Long> endOffsets(String topic) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
      Map<TopicPartition, OffsetSpec> request = new java.util.HashMap<>();
      int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
      for (int p = 0; p < partitions; p++) {
        request.put(new TopicPartition(topic, p), OffsetSpec.latest());
      }
      Map<TopicPartition, Long> offsets = new java.util.HashMap<>();
      for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> entry
          : admin.listOffsets(request).all().get().entrySet()) {
        if (entry.getValue().offset() > 0) {
          offsets.put(entry.getKey(), entry.getValue().offset());
        }
      }
      return offsets;
    }
  }

  private Map<TopicPartition, Long> committedOffsets(String group, String topic) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
      Map<TopicPartition, Long> offsets = new java.util.HashMap<>();
      for (Map.Entry<TopicPartition, OffsetAndMetadata> entry
          : admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().entrySet()) {
        if (entry.getKey().topic().equals(topic) && entry.getValue() != null && entry.getValue().offset() > 0) {
          offsets.put(entry.getKey(), entry.getValue().offset());
        }
      }
      return offsets;
    }
  }
}
