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
import dev.idem.runtime.IdempotencyStoreException;
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

/**
 * On MariaDB, a transactional command in a transaction idem owns sends its completing UPDATE and the COMMIT as one
 * anonymous compound statement ({@code BEGIN NOT ATOMIC … END}) with the driver's defaults: one round trip fewer,
 * every record committed with its outcome, and the COMMIT skipped whenever the UPDATE did not complete its record
 * or failed. A {@code CLAIM} command's fenced completion carries the commit of its body's transaction the same way.
 * (A commit failing after the completion, and connection cuts around it, are in FaultContractTest and the
 * idem-fault-tests suites.)
 */
@Timeout(30)
class MariaDbCommitWithResultTest extends DatabaseContract {

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

  /** The server's {@code @@in_transaction} at each {@code commit()} the runtime calls: 0, nothing left to commit. */
  private final List<Integer> inTransactionAtCommit = new CopyOnWriteArrayList<>();
  private IdemRuntime runtime;
  private CountingDataSource counted;

  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Override
  protected void prepare() {
    counted = new CountingDataSource(recordingStateAtCommit(database.dataSource()));
    runtime = IdemRuntime.builder()
        .dataSource(counted)
        .clock(clock).databaseTime(false)
        .listener(RecordingListener.keysOnly(IdempotencyListener.class, events))
        .build();
    runtime.createSchema();
    database.execute("CREATE TABLE payments (id VARCHAR(64) NOT NULL PRIMARY KEY) ENGINE = InnoDB");
  }

  @BeforeEach
  void clear() {
    database.execute("DROP TRIGGER IF EXISTS idem_record_fails", "DELETE FROM idem_record", "DELETE FROM payments");
    clock.set(Instant.parse("2030-01-01T00:00:00Z"));
    runtime.clearResultCache();
    counted.reset();
    inTransactionAtCommit.clear();
    events.clear();
  }

  private Receipt pay(String requestId, long amount, AtomicInteger calls) {
    return IdemEngine.of(runtime).<Receipt>execute(PAY, new Object[] {requestId}, new Object[] {amount}, () -> {
      calls.incrementAndGet();
      insertPayment(requestId + "-" + calls.get());
      return new Receipt("p-" + requestId, amount);
    });
  }

  private Receipt charge(String requestId, long amount, AtomicInteger calls, CommandBody<Void> more) {
    return IdemEngine.of(runtime).<Receipt>execute(CHARGE, new Object[] {requestId}, new Object[] {amount}, () -> {
      calls.incrementAndGet();
      insertPayment(requestId + "-" + calls.get());
      more.run();
      return new Receipt("c-" + requestId, amount);
    });
  }

  private void insertPayment(String id) throws SQLException {
    try (PreparedStatement insert = runtime.currentConnection()
        .prepareStatement("INSERT INTO payments (id) VALUES (?)")) {
      insert.setString(1, id);
      insert.executeUpdate();
    }
  }

  /** The completing UPDATE of {@code key} fails on the server, inside the compound statement, before its COMMIT. */
  private void failTheCompletionOf(String key) {
    database.execute("CREATE TRIGGER idem_record_fails BEFORE UPDATE ON idem_record FOR EACH ROW"
        + " BEGIN IF NEW.idem_key = '" + key + "' AND NEW.state = 'COMPLETED' THEN"
        + " SIGNAL SQLSTATE 'HY000' SET MYSQL_ERRNO = 1644, MESSAGE_TEXT = 'injected: completion fails'; END IF; END");
  }

  @Test
  void theResultsUpdateCarriesTheCommitSoThatCommitSendsNothing() {
    pay("warm-up", 1, new AtomicInteger()); // the schema check of a first call
    counted.reset();
    inTransactionAtCommit.clear();

    assertEquals(new Receipt("p-k1", 5), pay("k1", 5, new AtomicInteger()));

    CountingDataSource.Counts counts = counted.counts();
    assertEquals(3, counts.statements(), "claim, the body's INSERT, the UPDATE carrying the COMMIT: " + counts);
    assertEquals(1, counts.commits(), counts.toString());
    assertEquals(0, counts.rollbacks(), counts.toString());
    assertEquals(List.of(0), inTransactionAtCommit, "committed by the statement: nothing left to commit");
  }

  @Test
  void everyRecordIsCommittedWithItsResultAndReplays() throws SQLException {
    AtomicInteger calls = new AtomicInteger();
    for (int i = 0; i < 30; i++) {
      pay("r" + i, i, new AtomicInteger());
      calls.incrementAndGet();
    }
    assertEquals(30, inTransactionAtCommit.size());
    assertTrue(inTransactionAtCommit.stream().allMatch(state -> state == 0), inTransactionAtCommit.toString());
    assertEquals(30, count("SELECT COUNT(*) FROM idem_record WHERE state = 'COMPLETED' AND result IS NOT NULL"
        + " AND result_shape = 'shape-1'"));
    assertEquals(30, count("SELECT COUNT(*) FROM payments"));

    runtime.clearResultCache();
    AtomicInteger again = new AtomicInteger();
    for (int i = 0; i < 30; i++) {
      assertEquals(new Receipt("p-r" + i, i), pay("r" + i, i, again), "replayed from the table");
    }
    assertEquals(0, again.get());
  }

  @Test
  void aResultWithQuotesBackslashesAndSemicolonsTravelsIntact() throws SQLException {
    String id = "it's; END; \\ \" -- /* */ ? ; COMMIT";
    Receipt stored = IdemEngine.of(runtime).<Receipt>execute(PAY, new Object[] {"q1"}, new Object[] {1L},
        () -> new Receipt(id, 1));
    assertEquals(id, stored.paymentId());
    runtime.clearResultCache();
    assertEquals(stored, IdemEngine.of(runtime).<Receipt>execute(PAY, new Object[] {"q1"}, new Object[] {1L},
        () -> new Receipt("ran again", 0)));
  }

  @Test
  void aCompletionThatFindsNoPendingRecordFailsBeforeTheCommit() throws SQLException {
    AtomicInteger calls = new AtomicInteger();
    IdempotencyBrokenRecordException e = assertThrows(IdempotencyBrokenRecordException.class,
        () -> IdemEngine.of(runtime).<Receipt>execute(PAY, new Object[] {"b1"}, new Object[] {1L}, () -> {
          calls.incrementAndGet();
          insertPayment("b1-0");
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
  void aCompletionThatFailsOnTheServerSkipsTheCommitAndIsReportedAsRolledBack() throws SQLException {
    pay("warm-up", 1, new AtomicInteger()); // a previous block on the connection that did commit
    failTheCompletionOf("f1");
    AtomicInteger calls = new AtomicInteger();
    IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class, () -> pay("f1", 2, calls));
    assertFalse(e instanceof IdempotencyCommitUnknownException, "the COMMIT was never reached: " + e);
    assertTrue(e.getMessage().contains("rolled back"), e.getMessage());
    assertEquals(1644, assertInstanceOf(SQLException.class, e.getCause()).getErrorCode(), "the server's error");
    assertEquals(0, count("SELECT COUNT(*) FROM payments WHERE id LIKE 'f1-%'"), "nothing of it committed");
    assertEquals(0, count("SELECT COUNT(*) FROM idem_record WHERE idem_key = 'f1'"));
    assertFalse(events.contains("completed f1"), events.toString());

    database.execute("DROP TRIGGER idem_record_fails");
    assertEquals(new Receipt("p-f1", 2), pay("f1", 2, calls), "nothing had committed: the retry runs");
    assertEquals(2, calls.get());
    assertEquals(1, count("SELECT COUNT(*) FROM payments WHERE id LIKE 'f1-%'"));
  }

  @Test
  void commitReachedTellsAFailureBeforeTheCommitFromOneAtOrAfterIt() throws SQLException {
    SqlDialect dialect = SqlDialect.MARIADB;
    try (Connection connection = database.dataSource().getConnection()) {
      assertTrue(dialect.commitReached(connection), "a session that never ran the block: cannot tell");
      connection.setAutoCommit(false);
      try (Statement statement = connection.createStatement()) {
        statement.execute("INSERT INTO payments (id) VALUES ('probe-1')");
      }
      try (PreparedStatement store = connection.prepareStatement(dialect.storeResultAndCommitSql("idem_record"))) {
        store.setString(1, "{}");
        store.setString(2, null);
        store.setString(3, null);
        store.setString(4, "No.such");
        store.setString(5, "missing");
        SQLException e = assertThrows(SQLException.class, store::execute);
        assertTrue(dialect.isNothingToComplete(e), e.toString());
      }
      assertFalse(dialect.commitReached(connection), "the block stopped before its COMMIT");
      connection.rollback();
      connection.setAutoCommit(true);
    }
    assertEquals(0, count("SELECT COUNT(*) FROM payments WHERE id = 'probe-1'"));
  }

  @Test
  void inTheCallersTransactionTheCallerCommits() throws SQLException {
    pay("warm-up", 1, new AtomicInteger());
    counted.reset();
    inTransactionAtCommit.clear();
    runtime.inTransaction(connection -> pay("j1", 3, new AtomicInteger()));
    assertEquals(1, counted.counts().commits());
    assertEquals(List.of(1), inTransactionAtCommit, "the completion left the commit to the caller");
    assertEquals(1, count("SELECT COUNT(*) FROM idem_record WHERE idem_key = 'j1' AND state = 'COMPLETED'"));
  }

  @Test
  void aVoidCommandsCompletionCarriesTheCommitToo() throws SQLException {
    IdemEngine.of(runtime).<Void>execute(CANCEL, new Object[] {"warm-up"}, new Object[] {}, () -> null);
    counted.reset();
    inTransactionAtCommit.clear();
    IdemEngine.of(runtime).<Void>execute(CANCEL, new Object[] {"v1"}, new Object[] {}, () -> {
      insertPayment("v1");
      return null;
    });
    assertEquals(3, counted.counts().statements(), "claimed PENDING (DDL commits implicitly), completed: "
        + counted.counts());
    assertEquals(List.of(0), inTransactionAtCommit, "the completing UPDATE carried the commit");
    assertEquals(1, count("SELECT COUNT(*) FROM idem_record WHERE idem_key = 'v1' AND state = 'COMPLETED'"));
  }

  @Test
  void aClaimsCompletionCarriesTheCommitOfItsBodysTransaction() throws SQLException {
    charge("warm-up", 1, new AtomicInteger(), () -> null);
    counted.reset();
    inTransactionAtCommit.clear();

    assertEquals(new Receipt("c-k1", 5), charge("k1", 5, new AtomicInteger(), () -> null));

    CountingDataSource.Counts counts = counted.counts();
    assertEquals(List.of(0), inTransactionAtCommit, "committed by the completion");
    assertEquals(1, count("SELECT COUNT(*) FROM idem_record WHERE idem_key = 'k1' AND state = 'COMPLETED'"
        + " AND owner_token IS NULL AND result IS NOT NULL"), counts.toString());
    assertEquals(1, count("SELECT COUNT(*) FROM payments WHERE id = 'k1-1'"));
    runtime.clearResultCache();
    AtomicInteger again = new AtomicInteger();
    assertEquals(new Receipt("c-k1", 5), charge("k1", 5, again, () -> null), "replayed from the table");
    assertEquals(0, again.get());
  }

  @Test
  void aClaimsCompletionThatFailsOnTheServerIsRecordedAsUnknownAndItsWritesRollBack() throws SQLException {
    failTheCompletionOf("u1");
    AtomicInteger calls = new AtomicInteger();
    assertThrows(IdempotencyOutcomeUnknownException.class, () -> charge("u1", 7, calls, () -> null));
    assertEquals(0, count("SELECT COUNT(*) FROM payments WHERE id LIKE 'u1-%'"), "the body's writes rolled back");
    assertEquals(IdempotencyRecord.State.OUTCOME_UNKNOWN, runtime.inspect("Commits.charge", "u1").orElseThrow().state());
    database.execute("DROP TRIGGER idem_record_fails");
    assertThrows(IdempotencyOutcomeUnknownException.class, () -> charge("u1", 7, calls, () -> null));
    assertEquals(1, calls.get(), "never run again");
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

  /** Connections whose {@code commit()} first notes the server's {@code @@in_transaction}. */
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
                  try (Statement statement = real.createStatement();
                      ResultSet rs = statement.executeQuery("SELECT @@in_transaction")) {
                    rs.next();
                    inTransactionAtCommit.add(rs.getInt(1));
                  }
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
