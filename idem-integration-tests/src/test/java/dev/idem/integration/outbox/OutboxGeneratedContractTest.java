package dev.idem.integration.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.integration.outbox.OrderEvents.OrderCreated;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.OutboxMessage;
import dev.idem.runtime.OutboxPublisher;
import dev.idem.runtime.OutboxRelay;
import dev.idem.runtime.OutboxRelayOptions;
import dev.idem.runtime.OutboxTransactionRequiredException;
import dev.idem.runtime.PublishOutcome;
import dev.idem.runtime.TransactionBinding;
import dev.idem.testing.DatabaseContract;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The generated {@code OrderEvents_Outbox} with the runtime on a real database: events written by a generated
 * TRANSACTIONAL command's body commit with it (a replay writes none, a failed body leaves none), events in the
 * application's JDBC transaction (found by the TransactionBinding) commit or roll back with it, a call outside any
 * transaction is refused, and a relay hands what was written to a publisher.
 */
@Timeout(90)
abstract class OutboxGeneratedContractTest extends DatabaseContract {

  private IdemRuntime runtime;
  private OrderEvents events;
  private Orders orders;
  private final ThreadLocal<Connection> application = new ThreadLocal<>();
  private final AtomicInteger bodies = new AtomicInteger();

  @Override
  protected void prepare() {
    runtime = IdemRuntime.builder().dataSource(database.dataSource())
        .joinTransactions(new TransactionBinding() {
          @Override
          public Connection currentConnection() {
            return application.get();
          }
        }).build();
    runtime.createSchema();
    database.execute("CREATE TABLE orders (id VARCHAR(64) PRIMARY KEY, amount BIGINT NOT NULL)");
    events = new OrderEvents_Outbox(runtime);
    orders = new Orders_Idempotent((requestId, orderId, amountCents) -> {
      bodies.incrementAndGet();
      try (PreparedStatement insert = runtime.currentConnection()
          .prepareStatement("INSERT INTO orders (id, amount) VALUES (?, ?)")) {
        insert.setString(1, orderId);
        insert.setLong(2, amountCents);
        insert.executeUpdate();
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
      String messageId = events.orderCreated(new OrderCreated(orderId, amountCents));
      if (amountCents < 0) {
        throw new IllegalArgumentException("a negative amount, found after the event was written");
      }
      return messageId;
    }, runtime);
  }

  @BeforeEach
  void clean() {
    database.execute("DELETE FROM idem_outbox", "DELETE FROM orders", "DELETE FROM idem_record");
    runtime.clearResultCache();
    bodies.set(0);
  }

  @Test
  void aCommandsEventCommitsWithItsBodyAReplayWritesNoneAndAFailedBodyLeavesNone() {
    String messageId = orders.place("r-1", "o-1", 500);
    assertEquals(messageId, orders.place("r-1", "o-1", 500), "replayed: the same message id, no second event");
    assertEquals(1, bodies.get());
    assertThrows(IllegalArgumentException.class, () -> orders.place("r-2", "o-2", -1));
    assertEquals(List.of(messageId + " orders o-1 OrderCreated {\"orderId\":\"o-1\",\"amountCents\":500}"), rows());
    assertEquals(1, count("SELECT COUNT(*) FROM orders"));
  }

  @Test
  void eventsJoinTheApplicationsJdbcTransactionAndRollBackWithIt() throws SQLException {
    try (Connection connection = database.dataSource().getConnection()) {
      connection.setAutoCommit(false);
      application.set(connection);
      try {
        events.orderCancelled(new OrderCreated("o-9", 1), Map.of("reason", "fraud"));
        connection.rollback();
        events.orderCancelled(new OrderCreated("o-10", 2), Map.of("reason", "customer"));
        assertEquals(0, count("SELECT COUNT(*) FROM idem_outbox"), "not visible before the application commits");
        connection.commit();
      } finally {
        application.remove();
        connection.setAutoCommit(true);
      }
    }
    List<String> rows = rows();
    assertEquals(1, rows.size(), rows.toString());
    assertTrue(rows.get(0).endsWith(" orders o-10 OrderCancelled {\"orderId\":\"o-10\",\"amountCents\":2}"),
        rows.get(0));
  }

  @Test
  void outsideAnyTransactionTheGeneratedPublisherRefusesAndWritesNothing() {
    OutboxTransactionRequiredException refused = assertThrows(OutboxTransactionRequiredException.class,
        () -> events.orderCreated(new OrderCreated("o-1", 1)));
    assertTrue(refused.getMessage().contains("OrderEvents.orderCreated"), refused.getMessage());
    assertEquals(0, count("SELECT COUNT(*) FROM idem_outbox"));
  }

  @Test
  void aRelayPublishesWhatTheGeneratedPublisherWrote() throws Exception {
    String created = orders.place("r-1", "o-1", 500);
    String cancelled = runtime.inTransaction(connection -> {
      events.orderCancelled(new OrderCreated("o-1", 500), Map.of("reason", "fraud"));
      return null;
    });
    assertEquals(null, cancelled);
    List<OutboxMessage> published = new CopyOnWriteArrayList<>();
    OutboxPublisher publisher = messages -> {
      published.addAll(messages);
      return messages.stream().map(m -> PublishOutcome.sent()).toList();
    };
    try (OutboxRelay relay = runtime.startOutboxRelay(publisher,
        OutboxRelayOptions.defaults().withPollInterval(Duration.ofMillis(20)))) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (count("SELECT COUNT(*) FROM idem_outbox WHERE state = 'SENT'") < 2 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
    }
    assertEquals(2, published.size(), published.toString());
    OutboxMessage first = published.get(0);
    assertEquals(created, first.messageId());
    assertEquals("orders", first.destination());
    assertEquals("o-1", first.partitionKey());
    assertEquals("OrderCreated", first.eventType());
    assertEquals(Map.of(), first.headers());
    assertEquals("{\"orderId\":\"o-1\",\"amountCents\":500}", first.payload());
    OutboxMessage second = published.get(1);
    assertEquals("OrderCancelled", second.eventType());
    assertEquals(Map.of("reason", "fraud"), second.headers());
  }

  private List<String> rows() {
    List<String> rows = new ArrayList<>();
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(
            "SELECT id, destination, partition_key, event_type, payload FROM idem_outbox ORDER BY id")) {
      while (rs.next()) {
        rows.add(rs.getString(1) + " " + rs.getString(2) + " " + rs.getString(3) + " " + rs.getString(4) + " "
            + rs.getString(5));
      }
      return rows;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private long count(String sql) {
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
