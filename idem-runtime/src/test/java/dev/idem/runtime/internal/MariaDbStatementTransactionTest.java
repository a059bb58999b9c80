package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.Mode;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyBrokenRecordException;
import dev.idem.runtime.IdempotencyCommitUnknownException;
import dev.idem.runtime.IdempotencyException;
import dev.idem.runtime.internal.FaultInjectingDataSource.Effect;
import dev.idem.testing.CountingDataSource;
import dev.idem.testing.DatabaseContract;
import dev.idem.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * MariaDB: idem opens its own transactions with {@code START TRANSACTION} on connections the pool lends in
 * auto-commit mode, and ends them with {@code COMMIT} / {@code ROLLBACK} statements (issue #14). Every test runs on
 * a pool of one connection, so that the connection checked afterwards is the one idem gave back: it must be in
 * auto-commit mode and outside any transaction ({@code @@in_transaction = 0}), because a pool does not roll back a
 * connection in auto-commit mode. A pool lending connections with auto-commit off keeps the switch-free path.
 */
@Timeout(60)
class MariaDbStatementTransactionTest extends DatabaseContract {

  private static final CommandSpec<String> TRANSFER =
      CommandSpec.builder("StatementTx.transfer", ResultType.of(String.class)).keyParts("id").build();
  private static final CommandSpec<String> CHARGE = CommandSpec.builder("StatementTx.charge",
      ResultType.of(String.class)).mode(Mode.CLAIM).lease(Duration.ofSeconds(30)).keyParts("id").build();

  private HikariDataSource pool;
  private FaultInjectingDataSource faults;
  private CountingDataSource counted;
  private IdemRuntime runtime;

  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Override
  protected void prepare() {
    IdemRuntime.builder().dataSource(database.dataSource()).build().createSchema();
    database.execute("CREATE TABLE st_payments (id VARCHAR(64) NOT NULL PRIMARY KEY)");
  }

  /** A runtime on a pool of one connection lent with {@code autoCommit}, fault injection and counting on top. */
  private void onPoolOfOne(boolean autoCommit) {
    database.execute("DELETE FROM idem_record", "DELETE FROM st_payments");
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(database.url());
    config.setUsername(database.user());
    config.setPassword(database.password());
    config.setMaximumPoolSize(1);
    config.setMinimumIdle(1);
    config.setConnectionTimeout(2_000);
    config.setAutoCommit(autoCommit);
    config.setPoolName("idem-statement-tx");
    pool = new HikariDataSource(config);
    faults = new FaultInjectingDataSource(pool);
    counted = new CountingDataSource(faults.dataSource());
    runtime = IdemRuntime.builder().dataSource(counted).clock(clock).databaseTime(false).build();
  }

  private void closePool() {
    pool.close();
  }

  private String call(CommandSpec<String> spec, String id, CommandBody<String> body) {
    return IdemEngine.of(runtime).execute(spec, new Object[] {id}, new Object[0], body);
  }

  private void insertPayment(String id) {
    try (Statement statement = runtime.currentConnection().createStatement()) {
      statement.executeUpdate("INSERT INTO st_payments (id) VALUES ('" + id + "')");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static long inTransactionOf(Connection connection) {
    try (Statement statement = connection.createStatement();
         ResultSet rs = statement.executeQuery("SELECT @@in_transaction")) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The pool's only connection, as idem gave it back: auto-commit as lent, no transaction open. */
  private void assertGivenBackClean(boolean autoCommit) throws SQLException {
    try (Connection connection = pool.getConnection()) {
      assertEquals(autoCommit, connection.getAutoCommit(), "auto-commit as the pool lent it");
      assertEquals(0, inTransactionOf(connection), "no transaction left open on the pooled connection");
    }
  }

  private long payments(String id) throws SQLException {
    try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement();
         ResultSet rs = statement.executeQuery("SELECT COUNT(*) FROM st_payments WHERE id = '" + id + "'")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private List<String> controlStatements() {
    // SET STATEMENT … FOR wraps the CLAIM mode's insert (its lock wait of zero): a data statement too.
    return counted.executedSql().stream().filter(Predicate.not(sql -> sql.startsWith("INSERT")
        || sql.startsWith("UPDATE") || sql.startsWith("SELECT") || sql.startsWith("DELETE")
        || sql.startsWith("SET STATEMENT"))).toList();
  }

  @Test
  void aTransactionOfItsOwnOpensWithStartTransactionAndEndsWithACommitStatement() throws SQLException {
    onPoolOfOne(true);
    try {
      counted.reset();
      assertEquals("moved", call(TRANSFER, "t-1", () -> {
        assertFalse(runtime.currentConnection().getAutoCommit(), "the body sees a transaction");
        assertEquals(1, inTransactionOf(runtime.currentConnection()), "the server has one open");
        insertPayment("t-1");
        return "moved";
      }));
      List<String> sql = counted.executedSql();
      assertEquals("START TRANSACTION", sql.get(0), sql.toString());
      assertEquals("COMMIT", sql.get(sql.size() - 1), sql.toString());
      assertEquals(List.of("START TRANSACTION", "COMMIT"), controlStatements());
      assertEquals(0, counted.counts().autoCommitChanges(), "no auto-commit switch: one round trip each saved");
      assertEquals(0, counted.counts().commits());
      assertEquals(0, counted.counts().autoCommitStatements(), "everything ran inside the transaction");
      assertGivenBackClean(true);
      assertEquals(1, payments("t-1"));
      assertEquals("moved", call(TRANSFER, "t-1", () -> "not run"));
    } finally {
      closePool();
    }
  }

  @Test
  void aPoolLendingWithoutAutoCommitKeepsTheSwitchFreePath() throws SQLException {
    onPoolOfOne(false);
    try {
      counted.reset();
      assertEquals("moved", call(TRANSFER, "t-2", () -> {
        assertFalse(runtime.currentConnection().getAutoCommit());
        insertPayment("t-2");
        return "moved";
      }));
      assertEquals(List.of(), controlStatements(), "no START TRANSACTION, no COMMIT statement");
      assertEquals(0, counted.counts().autoCommitChanges());
      assertEquals(1, counted.counts().commits(), "the driver's commit()");
      assertGivenBackClean(false);
      assertEquals(1, payments("t-2"));
    } finally {
      closePool();
    }
  }

  @Test
  void aBodyThatThrowsIsRolledBackByStatementAndLeavesNoTransactionOpen() throws SQLException {
    onPoolOfOne(true);
    try {
      counted.reset();
      assertThrows(IllegalStateException.class, () -> call(TRANSFER, "t-3", () -> {
        insertPayment("t-3");
        throw new IllegalStateException("declined");
      }));
      assertEquals(List.of("START TRANSACTION", "ROLLBACK"), controlStatements());
      assertGivenBackClean(true);
      assertEquals(0, payments("t-3"));
      assertEquals("ran", call(TRANSFER, "t-3", () -> "ran"), "nothing was recorded: a retry runs");
    } finally {
      closePool();
    }
  }

  @Test
  void aFailedCompletionLeavesNoTransactionOpen() throws SQLException {
    onPoolOfOne(true);
    try {
      faults.failStatements(sql -> sql.startsWith("UPDATE"), Effect.FAIL, 1);
      assertThrows(IdempotencyException.class, () -> call(TRANSFER, "t-4", () -> {
        insertPayment("t-4");
        return "moved";
      }));
      assertEquals(1, faults.fired.get());
      assertGivenBackClean(true);
      assertEquals(0, payments("t-4"));
    } finally {
      closePool();
    }
  }

  @Test
  void aFailedCommitLeavesNoTransactionOpenAndARetryRuns() throws SQLException {
    onPoolOfOne(true);
    try {
      faults.failCommits(Effect.COMMIT_FAILS, 1);
      assertThrows(IdempotencyCommitUnknownException.class, () -> call(TRANSFER, "t-5", () -> {
        insertPayment("t-5");
        return "moved";
      }));
      assertEquals(1, faults.fired.get(), "the COMMIT statement is where the commit is");
      assertGivenBackClean(true);
      assertEquals(0, payments("t-5"));
      assertEquals("moved", call(TRANSFER, "t-5", () -> {
        insertPayment("t-5");
        return "moved";
      }));
      assertEquals(1, payments("t-5"));
    } finally {
      closePool();
    }
  }

  @Test
  void inTransactionWorkOpensAndEndsByStatement() throws SQLException {
    onPoolOfOne(true);
    try {
      counted.reset();
      runtime.runInTransaction(connection -> {
        assertFalse(connection.getAutoCommit());
        insertPayment("w-1");
      });
      assertEquals(List.of("START TRANSACTION", "COMMIT"), controlStatements());
      assertGivenBackClean(true);
      assertEquals(1, payments("w-1"));
      counted.reset();
      assertThrows(IllegalStateException.class, () -> runtime.runInTransaction(connection -> {
        insertPayment("w-2");
        throw new IllegalStateException("undo");
      }));
      assertEquals(List.of("START TRANSACTION", "ROLLBACK"), controlStatements());
      assertGivenBackClean(true);
      assertEquals(0, payments("w-2"));
    } finally {
      closePool();
    }
  }

  /**
   * Savepoints in a transaction opened by statement are statements too (a command called inside joins by one), so
   * that no driver's auto-commit check can refuse them: a nested command that succeeds is released into the outer
   * transaction, one that throws is rolled back to its savepoint, and the outer work still commits.
   */
  @Test
  void aNestedCommandJoinsBySavepointStatements() throws SQLException {
    onPoolOfOne(true);
    try {
      counted.reset();
      runtime.runInTransaction(connection -> {
        insertPayment("n-1");
        assertEquals("moved", call(TRANSFER, "n-2", () -> {
          insertPayment("n-2");
          return "moved";
        }));
        assertThrows(IllegalStateException.class, () -> call(TRANSFER, "n-3", () -> {
          insertPayment("n-3");
          throw new IllegalStateException("declined");
        }));
      });
      assertEquals(List.of("START TRANSACTION", "SAVEPOINT `idem_savepoint_1`", "RELEASE SAVEPOINT `idem_savepoint_1`",
          "SAVEPOINT `idem_savepoint_2`", "ROLLBACK TO SAVEPOINT `idem_savepoint_2`", "COMMIT"), controlStatements());
      assertGivenBackClean(true);
      assertEquals(1, payments("n-1"));
      assertEquals(1, payments("n-2"));
      assertEquals(0, payments("n-3"), "rolled back to the nested command's savepoint");
      assertEquals("moved", call(TRANSFER, "n-2", () -> "ran again"), "the nested command's record committed");
    } finally {
      closePool();
    }
  }

  /** CLAIM: the claim commits on its own in auto-commit mode; the body's transaction opens by statement. */
  @Test
  void aClaimCommitsInAutoCommitAndItsBodysTransactionOpensByStatement() throws SQLException {
    onPoolOfOne(true);
    try {
      counted.reset();
      assertEquals("charged", call(CHARGE, "c-1", () -> {
        assertFalse(runtime.currentConnection().getAutoCommit());
        insertPayment("c-1");
        return "charged";
      }));
      List<String> sql = counted.executedSql();
      int start = sql.indexOf("START TRANSACTION");
      assertTrue(start > 0, "the claim comes first, in auto-commit: " + sql);
      assertEquals(start, counted.counts().autoCommitStatements(), "the claim's statements commit on their own");
      assertEquals("COMMIT", sql.get(sql.size() - 1), sql.toString());
      assertEquals(List.of("START TRANSACTION", "COMMIT"), controlStatements());
      assertEquals(0, counted.counts().autoCommitChanges());
      assertGivenBackClean(true);
      assertEquals(1, payments("c-1"));

      // A body that throws: its transaction is rolled back by statement, the claim released in auto-commit.
      counted.reset();
      assertThrows(IllegalStateException.class, () -> call(CHARGE, "c-2", () -> {
        insertPayment("c-2");
        throw new IllegalStateException("declined");
      }));
      assertEquals(List.of("START TRANSACTION", "ROLLBACK"), controlStatements());
      assertGivenBackClean(true);
      assertEquals(0, payments("c-2"));
      assertEquals("charged", call(CHARGE, "c-2", () -> "charged"), "released: a retry runs");

      // A failed commit of the completion: the outcome is recorded unknown, nothing stays open.
      faults.failCommits(Effect.COMMIT_FAILS, 1);
      assertThrows(IdempotencyException.class, () -> call(CHARGE, "c-3", () -> "charged"));
      assertEquals(1, faults.fired.get());
      assertGivenBackClean(true);
    } finally {
      closePool();
    }
  }

  /**
   * The last line of defence: a transaction still open when idem closes the connection (its COMMIT or ROLLBACK
   * failed) is rolled back before the connection goes back to the pool, and switching auto-commit back on never
   * commits it.
   */
  @Test
  void closingOrSwitchingBackRollsBackATransactionStillOpen() throws SQLException {
    onPoolOfOne(true);
    try {
      Connection wrapped = new StatementTransactionConnection(pool.getConnection());
      wrapped.setAutoCommit(false);
      try (Statement statement = wrapped.createStatement()) {
        statement.executeUpdate("INSERT INTO st_payments (id) VALUES ('x-1')");
      }
      assertEquals(1, inTransactionOf(wrapped));
      wrapped.close();
      assertGivenBackClean(true);
      assertEquals(0, payments("x-1"), "rolled back, not committed");

      wrapped = new StatementTransactionConnection(pool.getConnection());
      wrapped.setAutoCommit(false);
      try (Statement statement = wrapped.createStatement()) {
        statement.executeUpdate("INSERT INTO st_payments (id) VALUES ('x-2')");
      }
      wrapped.setAutoCommit(true);
      assertTrue(wrapped.getAutoCommit());
      assertEquals(0, inTransactionOf(wrapped));
      wrapped.close();
      assertEquals(0, payments("x-2"), "rolled back, not committed by switching modes");
    } finally {
      closePool();
    }
  }

  /**
   * DDL in a body commits implicitly; with the connection in auto-commit mode, every later statement then commits
   * on its own, so a failure afterwards undoes none of them (with {@code setAutoCommit(false)} they would roll back).
   * The claim, committed PENDING by the DDL, is still found broken by a retry, which does not run the body again.
   */
  @Test
  void afterDdlTheBodysLaterStatementsCommitOnTheirOwnAndTheRecordIsFoundBroken() throws SQLException {
    onPoolOfOne(true);
    try {
      assertThrows(IllegalStateException.class, () -> call(TRANSFER, "d-1", () -> {
        insertPayment("d-1-before");
        try (Statement ddl = runtime.currentConnection().createStatement()) {
          ddl.execute("CREATE TABLE IF NOT EXISTS st_ddl_probe (id INT)");
        }
        insertPayment("d-1-after");
        throw new IllegalStateException("failed after the DDL");
      }));
      assertEquals(1, payments("d-1-before"), "committed by the DDL");
      assertEquals(1, payments("d-1-after"), "committed on its own: the session is in auto-commit mode");
      assertGivenBackClean(true);
      IdempotencyBrokenRecordException e = assertThrows(IdempotencyBrokenRecordException.class,
          () -> call(TRANSFER, "d-1", () -> "not run"));
      assertTrue(e.getMessage().contains("committed before its command finished"), e.getMessage());
    } finally {
      closePool();
    }
  }
}
