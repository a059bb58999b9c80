package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyBrokenRecordException;
import dev.idem.runtime.IdempotencyCommitUnknownException;
import dev.idem.runtime.IdempotencyLeaseLostException;
import dev.idem.runtime.IdempotencyListener;
import dev.idem.runtime.IdempotencyOutcomeUnknownException;
import dev.idem.runtime.IdempotencyRecord;
import dev.idem.testing.CountingDataSource;
import dev.idem.testing.DatabaseContract;
import dev.idem.testing.RecordingListener;
import dev.idem.testing.TestDatabase;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;

/**
 * On PostgreSQL, a transactional command in a transaction idem owns sends its result's UPDATE and the COMMIT as one
 * statement: one round trip fewer, every record committed with its result, and a failing commit surfacing from that
 * statement with nothing cached or reported. A {@code CLAIM} command's fenced completion carries the commit of its
 * body's transaction the same way, and a commit failing there follows CLAIM's fault rules (the outcome is unknown,
 * recorded against the owner token, and the body never runs again).
 */
@Timeout(30)
class PostgresCommitWithResultTest extends DatabaseContract {

  record Receipt(String paymentId, long amountCents) {}

  private static final CommandSpec<Receipt> PAY = CommandSpec.<Receipt>transactional("Commits.pay",
      ResultType.of(Receipt.class), "shape-1", 86_400_000L, new String[] {"requestId"}, new String[] {"amount"},
      "test.Commits#pay");
  private static final CommandSpec<Void> CANCEL = CommandSpec.<Void>transactional("Commits.cancel",
      ResultType.VOID, null, 86_400_000L, new String[] {"requestId"}, new String[] {}, "test.Commits#cancel");

  private static final CommandSpec<Receipt> CHARGE = CommandSpec.builder("Commits.charge", ResultType.of(Receipt.class))
      .resultShape("shape-1").mode(dev.idem.Mode.CLAIM).lease(Duration.ofSeconds(30))
      .onInFlight(dev.idem.InFlight.FAIL).retention(Duration.ofDays(1)).keyParts("requestId")
      .payload("amount").build();

  /** The driver's transaction state at each {@code commit()} the runtime calls. */
  private final List<TransactionState> statesAtCommit = new CopyOnWriteArrayList<>();
  private IdemRuntime runtime;
  private CountingDataSource counted;

  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }

  @Override
  protected void prepare() {
    counted = new CountingDataSource(recordingStateAtCommit(database.dataSource()));
    runtime = IdemRuntime.builder()
        .dataSource(counted)
        .clock(clock).databaseTime(false)
        .listener(RecordingListener.keysOnly(IdempotencyListener.class, events))
        // These tests count the statements of the claim-first path; the replays of other tests must not switch it.
        .adaptiveLookupFirst(false)
        .build();
    runtime.createSchema();
    // A deferred constraint is checked by the COMMIT itself: the way to make exactly the commit fail.
    database.execute("CREATE TABLE payments (id VARCHAR(64) NOT NULL PRIMARY KEY, ref INT,"
        + " CONSTRAINT payments_ref UNIQUE (ref) DEFERRABLE INITIALLY DEFERRED)");
  }

  @BeforeEach
  void clear() {
    database.execute("DELETE FROM idem_record", "DELETE FROM payments");
    clock.set(Instant.parse("2030-01-01T00:00:00Z"));
    runtime.clearResultCache();
    counted.reset();
    statesAtCommit.clear();
    events.clear();
  }

  private Receipt pay(String requestId, long amount, AtomicInteger calls, int... refs) {
    return IdemEngine.of(runtime).<Receipt>execute(PAY, new Object[] {requestId}, new Object[] {amount}, () -> {
      calls.incrementAndGet();
      for (int i = 0; i < Math.max(1, refs.length); i++) {
        insertPayment(requestId + "-" + i, refs.length == 0 ? null : refs[i]);
      }
      return new Receipt("p-" + requestId, amount);
    });
  }

  private Receipt charge(String requestId, long amount, AtomicInteger calls, CommandBody<Void> more, int... refs) {
    return IdemEngine.of(runtime).<Receipt>execute(CHARGE, new Object[] {requestId}, new Object[] {amount}, () -> {
      calls.incrementAndGet();
      for (int i = 0; i < Math.max(1, refs.length); i++) {
        insertPayment(requestId + "-" + i, refs.length == 0 ? null : refs[i]);
      }
      more.run();
      return new Receipt("c-" + requestId, amount);
    });
  }

  private void insertPayment(String id, Integer ref) throws SQLException {
    try (PreparedStatement insert = runtime.currentConnection()
        .prepareStatement("INSERT INTO payments (id, ref) VALUES (?, ?)")) {
      insert.setString(1, id);
      insert.setObject(2, ref);
      insert.executeUpdate();
    }
  }

  @Test
  void theResultsUpdateCarriesTheCommitSoThatCommitSendsNothing() {
    pay("warm-up", 1, new AtomicInteger()); // the schema check and prepared statements of a first call
    counted.reset();
    statesAtCommit.clear();

    assertEquals(new Receipt("p-k1", 5), pay("k1", 5, new AtomicInteger()));

    CountingDataSource.Counts counts = counted.counts();
    assertEquals(3, counts.statements(), "claim, the body's INSERT, the UPDATE carrying the COMMIT: " + counts);
    assertEquals(1, counts.commits(), counts.toString());
    assertEquals(0, counts.rollbacks(), counts.toString());
    // The driver follows the server's transaction status: committed by the statement, nothing left to send.
    assertEquals(List.of(TransactionState.IDLE), statesAtCommit);
  }

  @Test
  void everyRecordIsCommittedWithItsResultAndReplays() throws SQLException {
    AtomicInteger calls = new AtomicInteger();
    for (int i = 0; i < 30; i++) {
      pay("r" + i, i, calls);
    }
    assertEquals(30, calls.get());
    assertEquals(30, statesAtCommit.size());
    assertTrue(statesAtCommit.stream().allMatch(state -> state == TransactionState.IDLE), statesAtCommit.toString());
    assertEquals(30, count("SELECT COUNT(*) FROM idem_record WHERE state = 'COMPLETED' AND result IS NOT NULL"
        + " AND result_shape = 'shape-1'"));
    assertEquals(30, count("SELECT COUNT(*) FROM payments"));

    runtime.clearResultCache();
    for (int i = 0; i < 30; i++) {
      assertEquals(new Receipt("p-r" + i, i), pay("r" + i, i, calls), "replayed from the table");
    }
    assertEquals(30, calls.get());
  }

  @Test
  void aCommitThatFailsIsUnknownToTheCallerNothingIsCachedAndARetryRuns() throws SQLException {
    AtomicInteger calls = new AtomicInteger();
    IdempotencyCommitUnknownException e = assertThrows(IdempotencyCommitUnknownException.class,
        () -> pay("c1", 7, calls, 1, 1)); // two rows with ref 1: the deferred unique constraint fails at COMMIT
    assertEquals("Commits.pay", e.scope());
    assertEquals("c1", e.key());
    SQLException cause = assertInstanceOf(SQLException.class, e.getCause());
    assertEquals("23505", cause.getSQLState(), "the commit's own error is the cause");
    assertFalse(events.contains("completed c1"), events.toString());
    assertEquals(0, count("SELECT COUNT(*) FROM idem_record"), "the COMMIT failed: rolled back");
    assertEquals(0, count("SELECT COUNT(*) FROM payments"));

    // Nothing was cached: the retry runs the body, this time committing.
    assertEquals(new Receipt("p-c1", 7), pay("c1", 7, calls, 1, 2));
    assertEquals(2, calls.get());
    assertTrue(events.contains("completed c1"), events.toString());
    assertEquals(2, count("SELECT COUNT(*) FROM payments"));
  }

  @Test
  void aCompletionThatFindsNoPendingRecordFailsBeforeTheCommit() throws SQLException {
    AtomicInteger calls = new AtomicInteger();
    IdempotencyBrokenRecordException e = assertThrows(IdempotencyBrokenRecordException.class,
        () -> IdemEngine.of(runtime).<Receipt>execute(PAY, new Object[] {"b1"}, new Object[] {1L}, () -> {
          calls.incrementAndGet();
          insertPayment("b1-0", null);
          try (Statement statement = runtime.currentConnection().createStatement()) {
            statement.execute("DELETE FROM idem_record WHERE idem_key = 'b1'"); // the body changes its record
          }
          return new Receipt("p-b1", 1);
        }));
    assertTrue(e.getMessage().contains("no longer PENDING"), e.getMessage());
    assertEquals(0, count("SELECT COUNT(*) FROM payments"), "the body's writes never commit without their outcome");
    assertEquals(0, count("SELECT COUNT(*) FROM idem_record"));
    assertFalse(events.contains("completed b1"), events.toString());
  }

  @Test
  void inTheCallersTransactionTheCallerCommits() throws SQLException {
    pay("warm-up", 1, new AtomicInteger());
    counted.reset();
    statesAtCommit.clear();
    runtime.inTransaction(connection -> pay("j1", 3, new AtomicInteger()));
    assertEquals(1, counted.counts().commits());
    assertEquals(List.of(TransactionState.OPEN), statesAtCommit, "the completion left the commit to the caller");
    assertEquals(1, count("SELECT COUNT(*) FROM idem_record WHERE idem_key = 'j1' AND state = 'COMPLETED'"));
  }

  @Test
  void aVoidCommandStillCompletesWithItsClaim() {
    IdemEngine.of(runtime).<Void>execute(CANCEL, new Object[] {"warm-up"}, new Object[] {}, () -> null);
    counted.reset();
    statesAtCommit.clear();
    IdemEngine.of(runtime).<Void>execute(CANCEL, new Object[] {"v1"}, new Object[] {}, () -> {
      insertPayment("v1", null);
      return null;
    });
    assertEquals(2, counted.counts().statements(), counted.counts().toString());
    assertEquals(List.of(TransactionState.OPEN), statesAtCommit, "no completing UPDATE to carry the commit");
  }

  @Test
  void aClaimsCompletionCarriesTheCommitOfItsBodysTransaction() throws SQLException {
    charge("warm-up", 1, new AtomicInteger(), () -> null);
    counted.reset();
    statesAtCommit.clear();

    assertEquals(new Receipt("c-k1", 5), charge("k1", 5, new AtomicInteger(), () -> null));

    CountingDataSource.Counts counts = counted.counts();
    assertEquals(3, counts.statements(), "claim, the body's INSERT, the completion carrying the COMMIT: " + counts);
    assertEquals(1, counts.autoCommitStatements(), "the claim, committed before the body: " + counts);
    assertEquals(List.of(TransactionState.IDLE), statesAtCommit, "committed by the completion");
    assertEquals(1, count("SELECT COUNT(*) FROM idem_record WHERE idem_key = 'k1' AND state = 'COMPLETED'"
        + " AND owner_token IS NULL AND result IS NOT NULL"));
    assertEquals(1, count("SELECT COUNT(*) FROM payments WHERE id = 'k1-0'"));
    runtime.clearResultCache();
    AtomicInteger again = new AtomicInteger();
    assertEquals(new Receipt("c-k1", 5), charge("k1", 5, again, () -> null), "replayed from the table");
    assertEquals(0, again.get());
  }

  @Test
  void aClaimsCommitThatFailsIsRecordedAsUnknownAndTheBodyNeverRunsAgain() throws SQLException {
    AtomicInteger calls = new AtomicInteger();
    // Two rows with ref 1: the deferred unique constraint fails at the COMMIT the completion carries.
    IdempotencyOutcomeUnknownException e = assertThrows(IdempotencyOutcomeUnknownException.class,
        () -> charge("c1", 7, calls, () -> null, 1, 1));
    assertTrue(e.recorded(), e.getMessage());
    assertTrue(e.problem().contains("commit"), e.problem());
    assertEquals("23505", assertInstanceOf(SQLException.class, e.getCause()).getSQLState(), "the commit's error");
    assertEquals(0, count("SELECT COUNT(*) FROM payments"), "the COMMIT failed: the body's writes rolled back");
    assertEquals(IdempotencyRecord.State.OUTCOME_UNKNOWN, runtime.inspect("Commits.charge", "c1").orElseThrow().state());
    assertThrows(IdempotencyOutcomeUnknownException.class, () -> charge("c1", 7, calls, () -> null, 1, 2));
    assertEquals(1, calls.get(), "never run again");
    assertFalse(events.contains("completed c1"), events.toString());
  }

  @Test
  void aClaimsCompletionThatLostItsLeaseFailsBeforeTheCommit() throws SQLException {
    AtomicInteger calls = new AtomicInteger();
    assertThrows(IdempotencyLeaseLostException.class, () -> charge("l1", 3, calls, () -> {
      // Another caller took the lease over meanwhile (committed on a connection of its own).
      try (Connection other = database.dataSource().getConnection(); Statement statement = other.createStatement()) {
        statement.execute("UPDATE idem_record SET owner_token = 'someone-else' WHERE idem_key = 'l1'");
      }
      return null;
    }));
    assertEquals(0, count("SELECT COUNT(*) FROM payments"), "the body's writes never commit without their outcome");
    assertEquals(1, count("SELECT COUNT(*) FROM idem_record WHERE idem_key = 'l1' AND state = 'IN_PROGRESS'"
        + " AND owner_token = 'someone-else'"), "the new owner's claim stands");
    assertFalse(events.contains("completed l1"), events.toString());
  }

  private long count(String sql) throws SQLException {
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Connections whose {@code commit()} first notes the driver's transaction state. */
  private DataSource recordingStateAtCommit(DataSource target) {
    return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
        (proxy, method, args) -> {
          Object result = invoke(target, method, args);
          if (!(result instanceof Connection real)) {
            return result;
          }
          return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
              (connection, call, arguments) -> {
                if (call.getName().equals("commit")) {
                  statesAtCommit.add(real.unwrap(BaseConnection.class).getTransactionState());
                }
                return invoke(real, call, arguments);
              });
        });
  }

  private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
