package dev.idem.nats;

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
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.ConsumerInfo;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The pull consumer against the shared NATS JetStream and a generated {@code @IdempotentCommand} on H2: a consumer
 * killed after its handler's commit and before the ack gets the messages again after {@code ack_wait}, and the
 * claims make them no-ops: every event takes effect exactly once.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IdempotentJetStreamConsumerTest {

  private static final int EVENTS = 120;
  private static final Duration ACK_WAIT = Duration.ofSeconds(2);

  /** What a process killed at that point would leave: the handler's commit, no ack. */
  static final class Killed extends Error {
    Killed(String messageId) {
      super("killed after committing " + messageId + ", before the ack");
    }
  }

  private NatsTestServer server;
  private IsolatedDatabase database;
  private EffectsTable effects;
  private AppliedEvents events;

  @BeforeAll
  void connect() {
    server = NatsTestServer.connect();
    database = IsolatedDatabase.open(TestDatabase.H2);
    IdemRuntime runtime = IdemRuntime.builder().dataSource(database.dataSource()).build();
    runtime.createSchema();
    effects = new EffectsTable(runtime);
    events = new AppliedEvents_Idempotent(effects, runtime);
  }

  @AfterAll
  void disconnect() throws Exception {
    if (server != null) {
      server.close();
    }
    if (database != null) {
      database.close();
    }
  }

  @ParameterizedTest(name = "batch size {0}")
  @ValueSource(ints = {1, 10})
  void aConsumerKilledBetweenCommitAndAckHasItsRedeliveriesDeduplicated(int batchSize) throws Exception {
    String stream = server.createStream();
    String durable = "idem-test-" + UUID.randomUUID();
    createDurable(stream, durable);
    List<OutboxMessage> published = publish(NatsTestServer.subjectOf(stream));
    Set<String> killPoints = ConcurrentHashMap.newKeySet();
    killPoints.addAll(List.of(published.get(15).messageId(), published.get(70).messageId(),
        published.get(110).messageId()));

    int kills = 0;
    long redelivered = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (true) {
      IdempotentJetStreamConsumer.Builder builder = IdempotentJetStreamConsumer
          .builder(server.connection(), stream, durable).retryBackoff(Duration.ZERO);
      IdempotentJetStreamConsumer consumer = batchSize == 1
          ? builder.start(message -> {
              events.apply(new AppliedEvents.Event(message.messageId(), message.dataText()), message.group());
              killIfAt(killPoints, List.of(message));
            })
          : builder.startBatches(batchSize, messages -> {
              events.applyAll(messages.stream()
                  .map(m -> new AppliedEvents.Event(m.messageId(), m.dataText())).toList(), durable);
              killIfAt(killPoints, messages);
            });
      boolean killed = awaitKilledOrDone(consumer, stream, durable, deadline);
      consumer.close();
      redelivered += consumer.redelivered();
      if (!killed) {
        break;
      }
      assertTrue(consumer.failure() instanceof Killed, String.valueOf(consumer.failure()));
      kills++;
    }
    assertEquals(3, kills);
    assertTrue(redelivered > 0, "JetStream redelivered what was not acked");
    assertEquals(EVENTS, effects.effects(durable));
    assertEquals(EVENTS, effects.distinctMessages(durable));
  }

  @Test
  void aFailingHandlerHasItsMessageNakedAndDeliveredAgain() throws Exception {
    String stream = server.createStream();
    String durable = "idem-test-" + UUID.randomUUID();
    createDurable(stream, durable);
    publish(NatsTestServer.subjectOf(stream));
    AtomicInteger calls = new AtomicInteger();
    IdempotentJetStreamConsumer consumer = IdempotentJetStreamConsumer
        .builder(server.connection(), stream, durable).retryBackoff(Duration.ofMillis(10))
        .start(message -> {
          if (calls.incrementAndGet() <= 2) {
            throw new IllegalStateException("database down");
          }
          events.apply(new AppliedEvents.Event(message.messageId(), message.dataText()), message.group());
        });
    try {
      awaitKilledOrDone(consumer, stream, durable, System.nanoTime() + TimeUnit.SECONDS.toNanos(60));
    } finally {
      consumer.close();
    }
    assertEquals(2, consumer.retried());
    assertTrue(consumer.redelivered() >= 1);
    assertEquals(EVENTS, effects.effects(durable));
  }

  private void createDurable(String stream, String durable) throws Exception {
    server.management().addOrUpdateConsumer(stream, ConsumerConfiguration.builder().durable(durable)
        .ackPolicy(AckPolicy.Explicit).ackWait(ACK_WAIT).build());
  }

  private static void killIfAt(Set<String> killPoints, List<JetStreamMessage> committed) {
    for (JetStreamMessage message : committed) {
      if (killPoints.remove(message.messageId())) {
        throw new Killed(message.messageId());
      }
    }
  }

  private List<OutboxMessage> publish(String subject) throws InterruptedException {
    List<OutboxMessage> distinct = new ArrayList<>();
    for (int i = 0; i < EVENTS; i++) {
      distinct.add(new OutboxMessage(UUID.randomUUID().toString(), subject, "order-" + i, "OrderPaid", Map.of(),
          "{\"order\":" + i + "}", Instant.now()));
    }
    try (JetStreamOutboxPublisher publisher = JetStreamOutboxPublisher.builder(server.connection()).build()) {
      for (PublishOutcome outcome : publisher.publish(distinct)) {
        assertEquals(PublishOutcome.Status.SENT, outcome.status(), String.valueOf(outcome));
      }
    }
    return distinct;
  }

  private boolean awaitKilledOrDone(IdempotentJetStreamConsumer consumer, String stream, String durable,
                                    long deadline) throws Exception {
    while (System.nanoTime() < deadline) {
      if (consumer.failure() != null) {
        assertTrue(consumer.awaitStop(Duration.ofSeconds(10)));
        return true;
      }
      ConsumerInfo info = server.management().getConsumerInfo(stream, durable);
      if (info.getNumPending() == 0 && info.getNumAckPending() == 0 && effects.effects(durable) >= EVENTS) {
        return false;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("the consumer did not finish in time; acked " + consumer.acked());
  }
}
