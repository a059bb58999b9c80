package dev.idem.rabbitmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.brokers.testing.AppliedEvents;
import dev.idem.brokers.testing.AppliedEvents_Idempotent;
import dev.idem.brokers.testing.EffectsTable;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The consumer against the shared RabbitMQ and a generated {@code @IdempotentCommand} on H2: events published by the
 * outbox publisher (some twice, as a relay that died before marking them sent would), a consumer killed after its
 * handler's commit and before the ack, restarted: every event takes effect exactly once.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IdempotentRabbitConsumerTest {

  private static final int EVENTS = 120;

  /** What a process killed at that point would leave: the handler's commit, no ack. */
  static final class Killed extends Error {
    Killed(String messageId) {
      super("killed after committing " + messageId + ", before the ack");
    }
  }

  private RabbitTestBroker broker;
  private IsolatedDatabase database;
  private EffectsTable effects;
  private AppliedEvents events;

  @BeforeAll
  void connect() {
    broker = RabbitTestBroker.connect();
    database = IsolatedDatabase.open(TestDatabase.H2);
    IdemRuntime runtime = IdemRuntime.builder().dataSource(database.dataSource()).build();
    runtime.createSchema();
    effects = new EffectsTable(runtime);
    events = new AppliedEvents_Idempotent(effects, runtime);
  }

  @AfterAll
  void disconnect() throws Exception {
    if (broker != null) {
      broker.close();
    }
    if (database != null) {
      database.close();
    }
  }

  @ParameterizedTest(name = "batch size {0}")
  @ValueSource(ints = {1, 10})
  void aConsumerKilledBetweenCommitAndAckHasItsRedeliveriesDeduplicated(int batchSize) throws Exception {
    String group = "group-" + batchSize;
    String queue = broker.declareQueue();
    List<OutboxMessage> published = publish(queue);

    Set<String> killPoints = ConcurrentHashMap.newKeySet();
    killPoints.addAll(List.of(published.get(15).messageId(), published.get(70).messageId(),
        published.get(110).messageId()));
    int kills = 0;
    long redelivered = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (true) {
      IdempotentRabbitConsumer.Builder builder =
          IdempotentRabbitConsumer.builder(broker.connection(), queue, group).retryBackoff(Duration.ZERO);
      IdempotentRabbitConsumer consumer = batchSize == 1
          ? builder.start(message -> {
              events.apply(new AppliedEvents.Event(message.messageId(), message.bodyText()), message.group());
              killIfAt(killPoints, List.of(message));
            })
          : builder.startBatches(batchSize, messages -> {
              events.applyAll(messages.stream()
                  .map(m -> new AppliedEvents.Event(m.messageId(), m.bodyText())).toList(), group);
              killIfAt(killPoints, messages);
            });
      boolean killed = awaitKilledOrDrained(consumer, queue, group, deadline);
      consumer.close();
      redelivered += consumer.redelivered();
      if (!killed) {
        break;
      }
      assertTrue(consumer.failure() instanceof Killed, String.valueOf(consumer.failure()));
      kills++;
    }
    assertEquals(3, kills);
    assertTrue(redelivered > 0, "the broker redelivered what was not acked");
    assertEquals(0, broker.readyMessages(queue));
    assertEquals(EVENTS, effects.effects(group), "one effect per event, though " + published.size() + " were sent");
    assertEquals(EVENTS, effects.distinctMessages(group));
  }

  @Test
  void aFailingHandlerHasItsMessagesRequeuedUntilTheyTakeEffect() throws Exception {
    String queue = broker.declareQueue();
    publish(queue);
    AtomicInteger calls = new AtomicInteger();
    IdempotentRabbitConsumer consumer = IdempotentRabbitConsumer.builder(broker.connection(), queue, "failing")
        .retryBackoff(Duration.ofMillis(10))
        .start(message -> {
          if (calls.incrementAndGet() < 3) {
            throw new IllegalStateException("database down");
          }
          events.apply(new AppliedEvents.Event(message.messageId(), message.bodyText()), message.group());
        });
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (consumer.acked() < EVENTS + EVENTS / 10 && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
    } finally {
      consumer.close();
    }
    assertTrue(consumer.requeued() >= 2, "requeued after the failures: " + consumer.requeued());
    assertEquals(EVENTS, effects.effects("failing"));
    assertEquals(0, broker.readyMessages(queue));
  }

  @Test
  void aDeliveryWithoutAMessageIdIsRejectedAndTheOthersTakeEffect() throws Exception {
    String queue = broker.declareQueue();
    broker.admin().basicPublish("", queue, null, "{\"no\":\"id\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    broker.admin().basicPublish("", queue, new com.rabbitmq.client.AMQP.BasicProperties.Builder()
        .messageId("with-an-id").build(), "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    IdempotentRabbitConsumer consumer = IdempotentRabbitConsumer.builder(broker.connection(), queue, "no-id")
        .start(message -> events.apply(new AppliedEvents.Event(message.messageId(), message.bodyText()),
            message.group()));
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (consumer.acked() + consumer.rejected() < 2 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
    } finally {
      consumer.close();
    }
    assertEquals(1, consumer.rejected());
    assertEquals(1, consumer.acked());
    assertEquals(1, effects.effects("no-id"));
    assertEquals(0, broker.readyMessages(queue), "rejected without requeue");
  }

  private static void killIfAt(Set<String> killPoints, List<RabbitMessage> committed) {
    for (RabbitMessage message : committed) {
      if (killPoints.remove(message.messageId())) {
        throw new Killed(message.messageId());
      }
    }
  }

  /** Publishes EVENTS events through the outbox publisher, every tenth one twice (a relay's at-least-once). */
  private List<OutboxMessage> publish(String queue) throws InterruptedException {
    List<OutboxMessage> all = new ArrayList<>();
    List<OutboxMessage> distinct = new ArrayList<>();
    for (int i = 0; i < EVENTS; i++) {
      OutboxMessage message = new OutboxMessage(java.util.UUID.randomUUID().toString(), queue, "order-" + i,
          "OrderPaid", Map.of(), "{\"order\":" + i + "}", Instant.now());
      distinct.add(message);
      all.add(message);
      if (i % 10 == 9) {
        all.add(distinct.get(i - 5));
      }
    }
    try (RabbitOutboxPublisher publisher = RabbitOutboxPublisher.builder(broker.connection())
        .exchange(message -> "").routingKey(OutboxMessage::destination).build()) {
      for (PublishOutcome outcome : publisher.publish(all)) {
        assertEquals(PublishOutcome.Status.SENT, outcome.status(), String.valueOf(outcome));
      }
    }
    return distinct;
  }

  private boolean awaitKilledOrDrained(IdempotentRabbitConsumer consumer, String queue, String group, long deadline)
      throws Exception {
    long lastAcked = -1;
    int quiet = 0;
    while (System.nanoTime() < deadline) {
      if (consumer.failure() != null) {
        assertTrue(consumer.awaitStop(Duration.ofSeconds(10)));
        return true;
      }
      Thread.sleep(100);
      long acked = consumer.acked();
      boolean done = broker.readyMessages(queue) == 0 && effects.effects(group) >= EVENTS;
      quiet = done && acked == lastAcked ? quiet + 1 : 0;
      lastAcked = acked;
      if (quiet >= 5) {
        return false;
      }
    }
    throw new AssertionError("the consumer did not finish in time; acked " + consumer.acked());
  }
}
