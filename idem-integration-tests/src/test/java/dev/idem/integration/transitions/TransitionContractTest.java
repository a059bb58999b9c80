package dev.idem.integration.transitions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyException;
import dev.idem.runtime.IdempotencyStoreException;
import dev.idem.runtime.IllegalStateTransitionException;
import dev.idem.runtime.NoSuchEntityException;
import dev.idem.runtime.TransitionListener;
import dev.idem.runtime.TransitionResult;
import dev.idem.testing.IsolatedDatabase;
import dev.idem.testing.TestDatabase;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The generated {@code @StateTransition} code against a real database; the same suite runs on H2, PostgreSQL and
 * MariaDB through the subclasses.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class TransitionContractTest {

  /** Records every listener call as one line. */
  static final class RecordingListener implements TransitionListener {
    final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public void applied(String transition, String entity, Object id, String from, String to) {
      events.add("applied " + transition + " " + id + " " + from + "->" + to);
    }

    @Override
    public void alreadyApplied(String transition, String entity, Object id, String current) {
      events.add("alreadyApplied " + transition + " " + id + " " + current);
    }

    @Override
    public void rejected(String transition, String entity, Object id, String current, String reason) {
      events.add("rejected " + transition + " " + id + " " + current);
    }
  }

  private IsolatedDatabase db;
  private IdemRuntime runtime;
  private IdemRuntime loggingRuntime;
  private final RecordingListener listener = new RecordingListener();
  private PaymentFlow payments;
  private ShipmentFlow shipments;

  abstract TestDatabase database();

  @BeforeAll
  void openDatabase() {
    db = IsolatedDatabase.open(database());
    runtime = IdemRuntime.builder().dataSource(db.dataSource()).transitionListener(listener).build();
    loggingRuntime = IdemRuntime.builder().dataSource(db.dataSource()).logTransitions(true).build();
    runtime.createSchema();
    String order = database() == TestDatabase.MARIADB ? "`Order`" : "\"Order\"";
    db.execute(
        "CREATE TABLE payments (id BIGINT PRIMARY KEY, payment_state VARCHAR(16) NOT NULL,"
            + " row_version BIGINT NOT NULL)",
        "CREATE TABLE " + order + " (code VARCHAR(32) PRIMARY KEY, status INT NOT NULL)",
        "CREATE TABLE Ticket (ticket_id INT PRIMARY KEY, phase VARCHAR(32))",
        "CREATE TABLE receipts (request_id VARCHAR(64) PRIMARY KEY, payment_id BIGINT NOT NULL)");
    payments = new PaymentFlow_Idempotent(runtime);
    shipments = new ShipmentFlow_Idempotent(runtime);
  }

  @AfterAll
  void closeDatabase() {
    if (db != null) {
      db.close();
    }
  }

  @BeforeEach
  void clear() {
    String order = database() == TestDatabase.MARIADB ? "`Order`" : "\"Order\"";
    db.execute("DELETE FROM payments", "DELETE FROM " + order, "DELETE FROM Ticket", "DELETE FROM receipts",
        "DELETE FROM idem_transition_log", "DELETE FROM idem_record");
    listener.events.clear();
  }

  private void payment(long id, PaymentState state, long version) {
    db.execute("INSERT INTO payments (id, payment_state, row_version) VALUES (" + id + ", '" + state + "', "
        + version + ")");
  }

  private void shipment(String code, ShipmentStatus status) {
    String order = database() == TestDatabase.MARIADB ? "`Order`" : "\"Order\"";
    db.execute("INSERT INTO " + order + " (code, status) VALUES ('" + code + "', " + status.ordinal() + ")");
  }

  private String query(String sql) {
    try (Connection connection = db.dataSource().getConnection();
        PreparedStatement statement = connection.prepareStatement(sql);
        ResultSet rows = statement.executeQuery()) {
      List<String> values = new ArrayList<>();
      while (rows.next()) {
        List<String> row = new ArrayList<>();
        for (int i = 1; i <= rows.getMetaData().getColumnCount(); i++) {
          row.add(rows.getString(i));
        }
        values.add(String.join(" ", row));
      }
      return String.join("; ", values);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  private String paymentRow(long id) {
    return query("SELECT payment_state, row_version FROM payments WHERE id = " + id);
  }

  // ---- applied, repeated, rejected

  @Test
  void appliesOnceAndARepeatIsANoOp() {
    payment(1, PaymentState.NEW, 0);
    assertEquals(TransitionResult.APPLIED, payments.authorize(1L));
    assertEquals(TransitionResult.ALREADY_APPLIED, payments.authorize(1L));
    assertEquals(TransitionResult.ALREADY_APPLIED, payments.authorize(1L));
    assertEquals("AUTHORIZED 1", paymentRow(1), "state moved once; @Version incremented once");
  }

  @Test
  void aRepeatInALaterAcceptedStateIsANoOp() {
    payment(2, PaymentState.AUTHORIZED, 0);
    assertEquals(TransitionResult.APPLIED, payments.capture(2));
    assertTrue(payments.refund(2, 1));
    assertEquals(TransitionResult.ALREADY_APPLIED, payments.capture(2), "REFUNDED is in alsoAccept");
    assertEquals("REFUNDED 2", paymentRow(2));
  }

  @Test
  void aStaleCallIsRejectedAndNeverMovesTheStateBackwards() {
    payment(3, PaymentState.CAPTURED, 5);
    IllegalStateTransitionException e = assertThrows(IllegalStateTransitionException.class,
        () -> payments.cancel(3));
    assertEquals("Payment", e.entity());
    assertEquals(3L, e.id());
    assertEquals("CAPTURED", e.currentState());
    assertEquals(List.of("NEW", "AUTHORIZED"), e.allowedFrom());
    assertEquals("CANCELLED", e.to());
    assertTrue(e.getMessage().contains("Payment 3 is in CAPTURED, so it cannot move to CANCELLED"), e.getMessage());
    assertTrue(e instanceof IdempotencyException);
    assertEquals("CAPTURED 5", paymentRow(3));
  }

  @Test
  void anUnknownIdIsItsOwnError() {
    NoSuchEntityException e = assertThrows(NoSuchEntityException.class, () -> payments.authorize(404L));
    assertEquals("Payment", e.entity());
    assertEquals(404L, e.id());
    assertTrue(e.getMessage().contains("there is no Payment with id 404"), e.getMessage());
    assertEquals(List.of("rejected PaymentFlow.authorize 404 null"), listener.events);
  }

  // ---- @Version and @ExpectedVersion

  @Test
  void expectedVersionGuardsTheUpdate() {
    payment(4, PaymentState.CAPTURED, 7);
    IllegalStateTransitionException stale =
        assertThrows(IllegalStateTransitionException.class, () -> payments.refund(4, 6));
    assertEquals("CAPTURED", stale.currentState());
    assertTrue(stale.getMessage().contains("no longer has the expected version"), stale.getMessage());
    assertEquals("CAPTURED 7", paymentRow(4));

    assertTrue(payments.refund(4, 7), "applied now");
    assertEquals("REFUNDED 8", paymentRow(4));
    assertFalse(payments.refund(4, 7), "a repeat with the old version is still a no-op success");
    assertEquals("REFUNDED 8", paymentRow(4));
  }

  // ---- storage: ordinal enum, quoted reserved table name, String states

  @Test
  void ordinalStatesInATableNamedAfterAReservedWord() {
    String order = database() == TestDatabase.MARIADB ? "`Order`" : "\"Order\"";
    shipment("S-1", ShipmentStatus.PENDING);
    assertEquals(TransitionResult.APPLIED, shipments.dispatch("S-1"));
    assertEquals("1", query("SELECT status FROM " + order + " WHERE code = 'S-1'"));
    shipments.deliver("S-1");
    shipments.deliver("S-1"); // void: a repeat is silent
    assertEquals("2", query("SELECT status FROM " + order + " WHERE code = 'S-1'"));
    assertEquals(TransitionResult.ALREADY_APPLIED, shipments.dispatch("S-1"), "DELIVERED is in alsoAccept");

    IllegalStateTransitionException e =
        assertThrows(IllegalStateTransitionException.class, () -> shipments.lose("S-1"));
    assertEquals("DELIVERED", e.currentState(), "the ordinal is reported by name");
    assertThrows(NoSuchEntityException.class, () -> shipments.deliver("S-404"));
  }

  @Test
  void stringStatesInAMixedInterface() {
    Checkout checkout = new Checkout_Idempotent(new CheckoutImpl(payments), runtime);
    db.execute("INSERT INTO Ticket (ticket_id, phase) VALUES (7, 'in progress')",
        "INSERT INTO Ticket (ticket_id, phase) VALUES (8, 'new')");
    assertTrue(checkout.closeTicket(7));
    assertFalse(checkout.closeTicket(7));
    assertEquals("it's closed", query("SELECT phase FROM Ticket WHERE ticket_id = 7"));
    IllegalStateTransitionException e =
        assertThrows(IllegalStateTransitionException.class, () -> checkout.closeTicket(8));
    assertEquals("new", e.currentState());
    assertEquals("payment 5", checkout.describe(5), "plain methods are forwarded");
  }

  // ---- transactions

  @Test
  void aTransitionInsideACommandJoinsItsTransaction() {
    Checkout checkout = new Checkout_Idempotent(new CheckoutImpl(payments), runtime);
    payment(9, PaymentState.NEW, 0);
    assertEquals("receipt 9", checkout.pay("req-9", 9));
    assertEquals("receipt 9", checkout.pay("req-9", 9), "the command's retry replays, the body does not rerun");
    assertEquals("AUTHORIZED 1", paymentRow(9));
    assertEquals("req-9 9", query("SELECT request_id, payment_id FROM receipts"));
  }

  @Test
  void aTransitionJoinsAnOuterTransactionAndRollsBackWithIt() {
    payment(10, PaymentState.NEW, 0);
    RuntimeException failure = new RuntimeException("the rest of the work failed");
    RuntimeException thrown = assertThrows(RuntimeException.class, () -> runtime.inTransaction(connection -> {
      assertEquals(TransitionResult.APPLIED, payments.authorize(10L));
      try (PreparedStatement read = connection.prepareStatement(
          "SELECT payment_state FROM payments WHERE id = 10");
          ResultSet row = read.executeQuery()) {
        row.next();
        assertEquals("AUTHORIZED", row.getString(1), "the outer transaction sees the transition");
      }
      throw failure;
    }));
    assertEquals(failure, thrown);
    assertEquals("NEW 0", paymentRow(10), "rolled back with the outer transaction");
    assertEquals("", query("SELECT entity_id FROM idem_transition_log"), "the log row rolled back too");
    assertEquals(List.of(), listener.events, "nothing committed, so nothing is reported as applied");

    assertEquals(TransitionResult.APPLIED, payments.authorize(10L), "and it can be applied afterwards");
  }

  // ---- transition log and listener

  @Test
  void theTransitionLogRecordsAppliedTransitions() {
    payment(11, PaymentState.NEW, 0);
    payments.authorize(11L); // log = true
    payments.authorize(11L); // a repeat is not logged
    payments.capture(11); // not logged on this runtime
    assertEquals("PaymentFlow.authorize Payment 11 NEW AUTHORIZED", query(
        "SELECT transition_name, entity, entity_id, from_state, to_state FROM idem_transition_log"));
    assertTrue(Long.parseLong(query("SELECT applied_at FROM idem_transition_log")) > 0);

    // logTransitions(true) on the runtime logs every transition; with several from states, the one left is read.
    PaymentFlow logged = new PaymentFlow_Idempotent(loggingRuntime);
    payment(12, PaymentState.AUTHORIZED, 0);
    assertEquals(TransitionResult.APPLIED, logged.cancel(12));
    shipment("S-12", ShipmentStatus.DISPATCHED);
    assertTrue(shipments.lose("S-12")); // log = true, several from states, stored as ordinals
    assertEquals("PaymentFlow.cancel 12 AUTHORIZED CANCELLED; ShipmentFlow.lose S-12 DISPATCHED LOST",
        query("SELECT transition_name, entity_id, from_state, to_state FROM idem_transition_log"
            + " WHERE entity_id IN ('12', 'S-12') ORDER BY id"));
  }

  @Test
  void theListenerHearsAppliedRepeatedAndRejectedTransitions() {
    payment(13, PaymentState.NEW, 0);
    payments.authorize(13L);
    payments.authorize(13L);
    assertThrows(IllegalStateTransitionException.class, () -> payments.refund(13, 1));
    assertEquals(List.of(
            "applied PaymentFlow.authorize 13 NEW->AUTHORIZED",
            "alreadyApplied PaymentFlow.authorize 13 AUTHORIZED",
            "rejected PaymentFlow.refund 13 AUTHORIZED"),
        listener.events);
  }

  // ---- races

  /**
   * 32 threads released at once call capture and cancel on one authorized payment: exactly one call applies, the
   * callers of the same transition see ALREADY_APPLIED, the others are rejected, and the state is the winner's.
   */
  @Test
  void racingTransitionsApplyExactlyOnce() throws Exception {
    int threads = 32;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (long id = 100; id < 105; id++) {
        payment(id, PaymentState.AUTHORIZED, 0);
        long paymentId = id;
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger applied = new AtomicInteger();
        AtomicInteger repeated = new AtomicInteger();
        AtomicInteger rejected = new AtomicInteger();
        List<String> winners = new CopyOnWriteArrayList<>();
        List<Future<?>> calls = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          boolean capture = t % 2 == 0;
          calls.add(pool.submit(() -> {
            start.await();
            try {
              TransitionResult result = capture ? payments.capture(paymentId) : payments.cancel(paymentId);
              if (result == TransitionResult.APPLIED) {
                applied.incrementAndGet();
                winners.add(capture ? "CAPTURED" : "CANCELLED");
              } else {
                repeated.incrementAndGet();
              }
            } catch (IllegalStateTransitionException e) {
              rejected.incrementAndGet();
            }
            return null;
          }));
        }
        start.countDown();
        for (Future<?> call : calls) {
          call.get(60, TimeUnit.SECONDS);
        }
        assertEquals(1, applied.get(), "exactly one transition applies");
        assertEquals(threads / 2 - 1, repeated.get(), "the winner's competitors see ALREADY_APPLIED");
        assertEquals(threads / 2, rejected.get(), "the other transition is rejected");
        assertEquals(winners.get(0) + " 1", paymentRow(paymentId), "one update, the winner's state");
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void nullStateIsReportedNotMistakenForMissing() {
    db.execute("INSERT INTO Ticket (ticket_id, phase) VALUES (20, NULL)");
    Checkout checkout = new Checkout_Idempotent(new CheckoutImpl(payments), runtime);
    IllegalStateTransitionException e =
        assertThrows(IllegalStateTransitionException.class, () -> checkout.closeTicket(20));
    assertNull(e.currentState());
  }

  // ---- a transition's own SQL fails (issue 26 §5.1): an IdempotencyStoreException, a lock timeout retried

  /** Each connection its own, waiting at most a short lock timeout for a row lock; closed after use. */
  private DataSource shortLockTimeout() {
    String setting = switch (database()) {
      case H2 -> "SET LOCK_TIMEOUT 200";
      case POSTGRESQL -> "SET lock_timeout = '200ms'";
      case MARIADB -> "SET SESSION innodb_lock_wait_timeout = 1"; // whole seconds
    };
    return new DataSource() {
      @Override
      public Connection getConnection() throws SQLException {
        Connection connection = DriverManager.getConnection(db.url(), db.user(), db.password());
        try (Statement statement = connection.createStatement()) {
          statement.execute(setting);
        }
        return connection;
      }

      @Override
      public Connection getConnection(String user, String password) throws SQLException {
        return getConnection();
      }

      @Override
      public PrintWriter getLogWriter() {
        return null;
      }

      @Override
      public void setLogWriter(PrintWriter out) {}

      @Override
      public void setLoginTimeout(int seconds) {}

      @Override
      public int getLoginTimeout() {
        return 0;
      }

      @Override
      public java.util.logging.Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
      }

      @Override
      public <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLException("not a wrapper");
      }

      @Override
      public boolean isWrapperFor(Class<?> iface) {
        return false;
      }
    };
  }

  /** Another session's uncommitted update holds the payment's row lock until the connection is closed. */
  private Connection lockPayment(long id) throws SQLException {
    Connection holder = db.dataSource().getConnection();
    holder.setAutoCommit(false);
    try (Statement statement = holder.createStatement()) {
      statement.executeUpdate("UPDATE payments SET row_version = row_version WHERE id = " + id);
    }
    return holder;
  }

  private static void release(Connection holder) {
    try (holder) {
      holder.rollback();
      holder.setAutoCommit(true);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aLockTimeoutOfATransitionIsRetriedInANewTransaction() throws Exception {
    payment(20, PaymentState.NEW, 0);
    PaymentFlow impatient = new PaymentFlow_Idempotent(IdemRuntime.builder().dataSource(shortLockTimeout()).build());
    Connection holder = lockPayment(20);
    // Held past the first attempt's lock timeout (200 ms; MariaDB 1 s), released during a later attempt.
    ScheduledExecutorService releaser = Executors.newSingleThreadScheduledExecutor();
    try {
      releaser.schedule(() -> release(holder), database() == TestDatabase.MARIADB ? 1_500 : 300,
          TimeUnit.MILLISECONDS);
      assertEquals(TransitionResult.APPLIED, impatient.authorize(20L));
    } finally {
      releaser.shutdown();
      assertTrue(releaser.awaitTermination(10, TimeUnit.SECONDS));
    }
    assertEquals("AUTHORIZED 1", paymentRow(20));
  }

  @Test
  void aLockTimeoutInEveryAttemptIsAStoreExceptionWithTheDatabasesError() throws Exception {
    payment(21, PaymentState.NEW, 0);
    PaymentFlow impatient = new PaymentFlow_Idempotent(IdemRuntime.builder().dataSource(shortLockTimeout()).build());
    Connection holder = lockPayment(21);
    IdempotencyStoreException e;
    try {
      e = assertThrows(IdempotencyStoreException.class, () -> impatient.capture(21));
    } finally {
      release(holder);
    }
    assertTrue(e.getCause() instanceof SQLException, e.toString());
    assertTrue(e.getMessage().contains("in each of 5 attempts"), e.getMessage());
    assertEquals("NEW 0", paymentRow(21));
  }

  @Test
  void aTransitionOnAMissingTableIsAStoreExceptionSayingWhatToDoIfTheTableIsIdems() {
    payment(22, PaymentState.NEW, 0);
    db.execute("ALTER TABLE payments RENAME TO payments_away");
    IdempotencyStoreException e;
    try {
      e = assertThrows(IdempotencyStoreException.class, () -> payments.cancel(22));
    } finally {
      db.execute("ALTER TABLE payments_away RENAME TO payments");
    }
    assertTrue(e.getCause() instanceof SQLException, e.toString());
    assertTrue(e.getMessage().contains("If the missing table is idem's"), e.getMessage());
    assertEquals("NEW 0", paymentRow(22));
  }

  @Test
  void aMissingTransitionLogIsAStoreExceptionNamingItsDdl() {
    payment(23, PaymentState.NEW, 0);
    db.execute("ALTER TABLE idem_transition_log RENAME TO idem_transition_log_away");
    IdempotencyStoreException e;
    try {
      e = assertThrows(IdempotencyStoreException.class, () -> payments.authorize(23L));
    } finally {
      db.execute("ALTER TABLE idem_transition_log_away RENAME TO idem_transition_log");
    }
    assertTrue(e.getMessage().contains("idem's table idem_transition_log does not exist"), e.getMessage());
    assertTrue(e.getMessage().contains("runtime.createSchema()"), e.getMessage());
    assertTrue(e.getMessage().contains("dev/idem/runtime/schema/transition-log-"), e.getMessage());
    assertEquals("NEW 0", paymentRow(23), "the transition rolled back with its log row");
  }

  /** The user's implementation of the command and plain method of {@link Checkout}: no transition to stub. */
  final class CheckoutImpl implements Checkout_Commands {
    private final PaymentFlow flow;

    CheckoutImpl(PaymentFlow flow) {
      this.flow = flow;
    }

    @Override
    public String pay(String requestId, long paymentId) {
      flow.authorize(paymentId); // joins the command's transaction: one commit for the record and the state
      try (PreparedStatement insert = runtime.currentConnection().prepareStatement(
          "INSERT INTO receipts (request_id, payment_id) VALUES (?, ?)")) {
        insert.setString(1, requestId);
        insert.setLong(2, paymentId);
        insert.executeUpdate();
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
      return "receipt " + paymentId;
    }

    @Override
    public String describe(long paymentId) {
      return "payment " + paymentId;
    }
  }
}
