package dev.idem.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.examples.PaymentEvents.OrderPaid;
import dev.idem.runtime.IdemRuntime;
import dev.idem.testing.IsolatedDatabase;
import dev.idem.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A real broker and real crashes: messages with duplicates mixed in go through {@link RabbitPaymentConsumer};
 * the consumer crashes after the commit but before the ack of some of them (its channel closes, the broker
 * redelivers), is restarted, and in the end every message's business effect happened exactly once. Business
 * effects live on PostgreSQL, as in production.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RabbitPaymentConsumerTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MESSAGES = 300;

  private RabbitBroker broker;
  private IsolatedDatabase database;
  private PaymentEvents events;

  @BeforeAll
  void connect() {
    broker = RabbitBroker.connect();
    database = IsolatedDatabase.open(TestDatabase.POSTGRESQL);
    IdemRuntime runtime = IdemRuntime.builder().dataSource(database.dataSource()).build();
    runtime.createSchema();
    JdbcOrderService.createTables(runtime);
    events = new PaymentEvents_Idempotent(new JdbcOrderService(runtime), runtime);
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

  /** @param batchSize 1: one transaction and one ack per message; more: batches, prefetch 2x, multiple acks */
  @ParameterizedTest(name = "batch size {0}")
  @ValueSource(ints = {1, 10})
  void everyMessageTakesEffectExactlyOnceDespiteDuplicatesAndCrashesBeforeTheAck(int batchSize) throws Exception {
    String group = "group-" + batchSize;
    String queue = broker.declareQueue();
    int published = publishWithDuplicates(queue);

    // The consumer crashes once right after committing each of these, before acking it.
    Set<String> crashPoints = ConcurrentHashMap.newKeySet();
    crashPoints.addAll(List.of("m-40", "m-150", "m-260"));
    RabbitPaymentConsumer.CrashBeforeAck crashBeforeAck =
        committed -> committed.stream().anyMatch(message -> crashPoints.remove(message.messageId()));

    int crashes = 0;
    long redelivered = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (true) {
      RabbitPaymentConsumer consumer =
          RabbitPaymentConsumer.start(broker.connection(), queue, group, events, batchSize, crashBeforeAck);
      boolean crashed = awaitCrashOrDrained(consumer, queue, group, deadline);
      consumer.close();
      redelivered += consumer.redelivered();
      if (!crashed) {
        break;
      }
      crashes++; // restart, as a supervisor would
    }

    assertEquals(3, crashes, "the consumer crashed at each crash point");
    assertTrue(crashPoints.isEmpty());
    assertTrue(redelivered > 0, "the broker redelivered what was not acked");
    assertEquals(0, broker.readyMessages(queue), "every delivery was acked");
    assertEquals(MESSAGES, count("SELECT COUNT(*) FROM payment_effects WHERE consumer_group = '" + group + "'"),
        "one business effect per message, although " + published + " deliveries were published");
    assertEquals(MESSAGES,
        count("SELECT COUNT(DISTINCT order_id) FROM payment_effects WHERE consumer_group = '" + group + "'"));
  }

  /** Publishes MESSAGES distinct messages and, mixed in, duplicates of earlier ones (about 3%). */
  private int publishWithDuplicates(String queue) throws Exception {
    Random random = new Random(42);
    List<OrderPaid> sent = new ArrayList<>();
    for (int i = 0; i < MESSAGES; i++) {
      OrderPaid message = new OrderPaid("m-" + i, i, 100 + i);
      broker.publish(queue, message.messageId(), JSON.writeValueAsBytes(message));
      sent.add(message);
      if (i % 33 == 32) {
        OrderPaid duplicate = sent.get(random.nextInt(sent.size()));
        broker.publish(queue, duplicate.messageId(), JSON.writeValueAsBytes(duplicate));
        sent.add(sent.get(0)); // only counts the published ones
      }
    }
    return sent.size();
  }

  /**
   * @return true if the consumer crashed; false once it processed everything: the effects are all there, the
   *     queue is empty and nothing was acked for a while
   */
  private boolean awaitCrashOrDrained(RabbitPaymentConsumer consumer, String queue, String group, long deadline)
      throws Exception {
    long lastAcked = -1;
    int quietRounds = 0;
    while (System.nanoTime() < deadline) {
      if (consumer.crashed()) {
        assertTrue(consumer.awaitStop(10, TimeUnit.SECONDS));
        return true;
      }
      Thread.sleep(100);
      long acked = consumer.acked();
      boolean done = broker.readyMessages(queue) == 0
          && count("SELECT COUNT(*) FROM payment_effects WHERE consumer_group = '" + group + "'") >= MESSAGES;
      quietRounds = done && acked == lastAcked ? quietRounds + 1 : 0;
      lastAcked = acked;
      if (quietRounds >= 5) {
        return false;
      }
    }
    throw new AssertionError("the consumer did not finish in time; acked " + consumer.acked());
  }

  private long count(String sql) throws SQLException {
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    }
  }
}
