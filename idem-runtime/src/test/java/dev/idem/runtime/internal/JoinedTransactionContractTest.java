package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.Mode;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyListener;
import dev.idem.runtime.TransactionBinding;
import dev.idem.testing.DatabaseContract;
import dev.idem.testing.RecordingListener;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Commands, batches and transactions joining the application's own transaction, found through a
 * {@link TransactionBinding} or given by {@link IdemRuntime#withConnection}: the record commits and rolls back with
 * the application's writes, and the body writes on the application's connection. Called exactly as generated code
 * calls the engine; runs against every database through the concrete subclasses.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
abstract class JoinedTransactionContractTest extends DatabaseContract {

  static final class CardDeclinedException extends Exception {
    private static final long serialVersionUID = 1L;

    CardDeclinedException(String message) {
      super(message);
    }
  }

  private static final ReplayableFailure<CardDeclinedException> CARD_DECLINED = ReplayableFailure.of(
      CardDeclinedException.class, e -> new Object[] {e.getMessage()},
      arguments -> new CardDeclinedException((String) arguments[0]), String.class);

  private static final CommandSpec<String> PAY = CommandSpec.builder("Payments.pay", ResultType.of(String.class))
      .retention(Duration.ofDays(1)).keyParts("id").payload("amount").build();
  private static final CommandSpec<String> CHARGE = CommandSpec.builder("Payments.charge", ResultType.of(String.class))
      .retention(Duration.ofDays(1)).keyParts("id").payload("amount").replayOn(CARD_DECLINED).build();
  private static final CommandSpec<String> CLAIMED = CommandSpec.builder("Gateway.charge", ResultType.of(String.class))
      .mode(Mode.CLAIM).lease(Duration.ofSeconds(30)).retention(Duration.ofDays(1)).keyParts("id").payload("amount")
      .build();
  private static final CommandSpec<Void> CONSUME = CommandSpec.builder("Orders.consume", ResultType.VOID)
      .retention(Duration.ofDays(1)).keyParts("id").payload("amount").build();

  /**
   * The application's own transaction manager, as small as can be: one transaction per thread on a connection of
   * the pool, with after-commit actions (when {@code withHook}). What Spring's or JDBI's managers do, in miniature.
   */
  static final class ApplicationTransactions implements TransactionBinding {
    private final DataSource dataSource;
    private final boolean withHook;
    private final ThreadLocal<Connection> connection = new ThreadLocal<>();
    private final ThreadLocal<List<Runnable>> afterCommit = new ThreadLocal<>();
    final List<String> calls = new CopyOnWriteArrayList<>();

    ApplicationTransactions(DataSource dataSource, boolean withHook) {
      this.dataSource = dataSource;
      this.withHook = withHook;
    }

    interface Work<T> {
      T run(Connection connection) throws Exception;
    }

    <T> T inTransaction(Work<T> work) throws Exception {
      try (Connection c = dataSource.getConnection()) {
        c.setAutoCommit(false);
        connection.set(c);
        afterCommit.set(new ArrayList<>());
        T result;
        try {
          result = work.run(c);
          c.commit();
        } catch (Exception | Error e) {
          c.rollback();
          throw e;
        } finally {
          connection.remove();
          c.setAutoCommit(true);
        }
        List<Runnable> actions = afterCommit.get();
        afterCommit.remove();
        actions.forEach(Runnable::run);
        return result;
      }
    }

    @Override
    public Connection currentConnection() {
      return connection.get();
    }

    @Override
    public void flush() {
      calls.add("flush");
    }

    @Override
    public void bodyFailed(Throwable failure) {
      calls.add("bodyFailed " + failure.getMessage());
    }

    @Override
    public void failureRecorded(Throwable failure) {
      calls.add("failureRecorded " + failure.getMessage());
    }

    @Override
    public void entityChanged(String entityName, Object id) {
      calls.add("entityChanged " + entityName + " " + id);
    }

    @Override
    public boolean afterCommit(Runnable action) {
      if (!withHook) {
        return false;
      }
      afterCommit.get().add(action);
      return true;
    }
  }

  private ApplicationTransactions app;
  private ApplicationTransactions appWithoutHook;
  private IdemRuntime runtime;
  private IdemRuntime runtimeWithoutHook;

  @Override
  protected void prepare() {
    app = new ApplicationTransactions(counting, true);
    appWithoutHook = new ApplicationTransactions(counting, false);
    runtime = runtime(app);
    runtimeWithoutHook = runtime(appWithoutHook);
    runtime.createSchema();
    database.execute("CREATE TABLE payments (id VARCHAR(64) NOT NULL PRIMARY KEY)",
        "CREATE TABLE accounts (id VARCHAR(64) NOT NULL PRIMARY KEY, balance BIGINT NOT NULL)");
  }

  private IdemRuntime runtime(TransactionBinding binding) {
    return IdemRuntime.builder().dataSource(counting).clock(clock).databaseTime(false).joinTransactions(binding)
        .listener(RecordingListener.keysOnly(IdempotencyListener.class, events)).build();
  }

  @BeforeEach
  void clear() {
    database.execute("DELETE FROM idem_record", "DELETE FROM payments", "DELETE FROM accounts",
        "INSERT INTO accounts (id, balance) VALUES ('a', 0)");
    clock.set(Instant.parse("2030-01-01T00:00:00Z"));
    runtime.clearResultCache();
    runtimeWithoutHook.clearResultCache();
    counting.reset();
    events.clear();
    app.calls.clear();
    appWithoutHook.calls.clear();
  }

  @Test
  void anAppliedTransitionTellsTheBindingWhichEntityChangedAfterFlushing() throws Exception {
    TransitionSpec spec = TransitionSpec.builder("Accounts.open", "Account").from("NEW").to("OPEN").build();
    app.inTransaction(connection -> IdemEngine.of(runtime).inTransaction(c -> {
      // (the generated guarded UPDATE would run here, on c)
      IdemEngine.of(runtime).transitions().applied(spec, "a", "NEW");
      return IdemEngine.of(runtime).transitions().notApplied(spec, "a", "OPEN");
    }));
    assertEquals(List.of("flush", "entityChanged Account a"), app.calls,
        "pending writes flushed before the transition's statements; only an applied transition changed the row");

    // In idem's own transaction no binding is told anything.
    app.calls.clear();
    IdemEngine.of(runtime).inTransaction(c -> IdemEngine.of(runtime).transitions().applied(spec, "a", "NEW"));
    assertEquals(List.of(), app.calls);
  }

  // ---- "generated" calls and the delegate's JDBC

  private String pay(IdemRuntime on, String id, AtomicInteger calls) {
    return IdemEngine.of(on).execute(PAY, new Object[] {id}, new Object[] {5L}, () -> {
      calls.incrementAndGet();
      insertPayment(on.currentConnection(), "p-" + id);
      return "paid " + id;
    });
  }

  private static void insertPayment(Connection connection, String id) throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement("INSERT INTO payments (id) VALUES (?)")) {
      insert.setString(1, id);
      insert.executeUpdate();
    }
  }

  private static void addToBalance(Connection connection, long amount) throws SQLException {
    try (PreparedStatement update = connection.prepareStatement(
        "UPDATE accounts SET balance = balance + ? WHERE id = 'a'")) {
      update.setLong(1, amount);
      assertEquals(1, update.executeUpdate());
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

  private long records() {
    return count("SELECT COUNT(*) FROM idem_record");
  }

  private long payments() {
    return count("SELECT COUNT(*) FROM payments");
  }

  private long balance() {
    return count("SELECT balance FROM accounts WHERE id = 'a'");
  }

  // ---- tests

  @Test
  void theRecordCommitsWithTheApplicationsTransactionOnItsConnection() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    String result = app.inTransaction(connection -> {
      insertPayment(connection, "app-own");
      String paid = pay(runtime, "k1", calls);
      assertEquals(0, records(), "not visible before the application commits");
      assertFalse(events.contains("completed k1"), "completed is reported once the application committed");
      return paid;
    });
    assertEquals("paid k1", result);
    assertEquals(1, calls.get());
    assertEquals(2, payments());
    assertEquals(1, records());
    assertEquals(1, counting.connectionsObtained(), "idem used the application's connection, no other");
    assertEquals(List.of("flush", "flush"), app.calls,
        "the binding flushed before idem's savepoint (the application's pending writes) and after the body");
    assertTrue(events.contains("completed k1"));
  }

  @Test
  void aRollbackOfTheApplicationsTransactionUndoesTheRecordAndTheWrites() {
    AtomicInteger calls = new AtomicInteger();
    IllegalStateException abort = new IllegalStateException("abort");
    assertSame(abort, assertThrows(IllegalStateException.class, () -> app.inTransaction(connection -> {
      pay(runtime, "k2", calls);
      throw abort;
    })));
    assertEquals(0, payments());
    assertEquals(0, records());
    assertFalse(events.contains("completed k2"));
    assertEquals("paid k2", pay(runtime, "k2", calls), "nothing cached: the retry runs the body");
    assertEquals(2, calls.get());
  }

  @Test
  void aDelegateUpdatingARowTheApplicationLockedDoesNotDeadlock() throws Exception {
    // The application's transaction holds the account row's lock; the body updates the same row. Had idem begun a
    // transaction of its own, the body would wait for the application, which waits for the body (issue 12).
    app.inTransaction(connection -> {
      addToBalance(connection, 100);
      return IdemEngine.of(runtime).execute(PAY, new Object[] {"k3"}, new Object[] {5L}, () -> {
        addToBalance(runtime.currentConnection(), 5);
        return "ok";
      });
    });
    assertEquals(105, balance());
    assertEquals(1, records());
  }

  @Test
  void aRetryAfterTheCommitReplaysFromTheCacheTheHookFilled() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    app.inTransaction(connection -> pay(runtime, "k4", calls));
    counting.reset();
    assertEquals("paid k4", pay(runtime, "k4", calls));
    assertEquals(1, calls.get());
    assertEquals(0, counting.connectionsObtained(), "cached after the application's commit: no round trip");
    assertEquals("paid k4", app.inTransaction(connection -> pay(runtime, "k4", calls)), "replays inside one too");
    assertEquals(1, calls.get());
  }

  @Test
  void withoutAnAfterCommitHookNothingIsCachedAndCompletionIsReportedAtOnce() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    appWithoutHook.inTransaction(connection -> {
      pay(runtimeWithoutHook, "k5", calls);
      assertTrue(events.contains("completed k5"), "reported at once: idem cannot see the commit");
      assertThrows(IllegalStateException.class, () -> runtimeWithoutHook.afterCommit(() -> {}));
      return null;
    });
    counting.reset();
    assertEquals("paid k5", pay(runtimeWithoutHook, "k5", calls));
    assertEquals(1, calls.get());
    assertEquals(1, counting.connectionsObtained(), "not cached: the replay read the table");
  }

  @Test
  void aBodyFailingInsideTheApplicationsTransactionLeavesNeitherRecordNorWrites() throws Exception {
    IllegalArgumentException boom = new IllegalArgumentException("boom");
    app.inTransaction(connection -> {
      insertPayment(connection, "app-own");
      assertSame(boom, assertThrows(IllegalArgumentException.class,
          () -> IdemEngine.of(runtime).execute(PAY, new Object[] {"k6"}, new Object[] {5L}, () -> {
            insertPayment(runtime.currentConnection(), "p-k6");
            throw boom;
          })));
      return null;
    });
    assertEquals(1, payments(), "only the application's own write committed");
    assertEquals(0, records());
    assertEquals(List.of("flush", "bodyFailed boom"), app.calls);
  }

  @Test
  void aFailingFlushCountsAsTheBodysFailure() throws Exception {
    IllegalStateException flushFailure = new IllegalStateException("constraint violated at flush");
    IdemRuntime failingFlush = runtime(new TransactionBinding() {
      @Override
      public Connection currentConnection() {
        return app.currentConnection();
      }

      @Override
      public void flush() {
        throw flushFailure;
      }
    });
    app.inTransaction(connection -> {
      assertSame(flushFailure, assertThrows(IllegalStateException.class, () -> pay(failingFlush, "k7",
          new AtomicInteger())));
      return null;
    });
    assertEquals(0, payments());
    assertEquals(0, records());
  }

  @Test
  void aReplayOnFailureInsideTheApplicationsTransactionIsRecordedWithoutTheBodysWrites() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    CommandBody<String> declining = () -> {
      calls.incrementAndGet();
      insertPayment(runtime.currentConnection(), "attempt-" + calls.get());
      throw new CardDeclinedException("declined");
    };
    app.inTransaction(connection -> {
      insertPayment(connection, "app-own");
      assertThrows(CardDeclinedException.class,
          () -> IdemEngine.of(runtime).execute(CHARGE, new Object[] {"k8"}, new Object[] {5L}, declining));
      return null;
    });
    assertEquals(1, payments(), "the body's write was rolled back to the savepoint, the application's kept");
    assertEquals(1, records());
    assertEquals(List.of("flush", "failureRecorded declined"), app.calls,
        "a recorded replayOn failure is told apart from a failure that leaves nothing");
    runtime.clearResultCache();
    CardDeclinedException replayed = assertThrows(CardDeclinedException.class,
        () -> IdemEngine.of(runtime).execute(CHARGE, new Object[] {"k8"}, new Object[] {5L}, declining));
    assertEquals("declined", replayed.getMessage());
    assertEquals(1, calls.get());
  }

  @Test
  void batchesAndInTransactionJoinTheApplicationsTransaction() {
    assertThrows(IllegalStateException.class, () -> app.inTransaction(connection -> {
      IdemEngine.of(runtime).executeBatch(CONSUME, List.of("m1", "m2"), m -> new Object[] {m},
          m -> new Object[] {5L}, messages -> {
            for (String m : messages) {
              insertPayment(runtime.currentConnection(), m);
            }
            return messages.size();
          });
      runtime.runInTransaction(joined -> insertPayment(joined, "in-transaction"));
      assertEquals(0, payments(), "nothing committed yet");
      throw new IllegalStateException("abort");
    }));
    assertEquals(0, payments());
    assertEquals(0, records());
  }

  @Test
  void currentConnectionIsTheApplicationsGuarded() throws Exception {
    app.inTransaction(connection -> {
      Connection guarded = runtime.currentConnection();
      assertNotSame(connection, guarded);
      assertThrows(IllegalStateException.class, guarded::commit);
      assertThrows(IllegalStateException.class, guarded::rollback);
      guarded.close(); // harmless
      assertFalse(connection.isClosed());
      return null;
    });
    assertThrows(IllegalStateException.class, runtime::currentConnection, "no transaction, none to join");
  }

  @Test
  void withConnectionJoinsAPlainJdbcTransaction() throws Exception {
    IdemRuntime plain = IdemRuntime.builder().dataSource(counting).clock(clock).databaseTime(false).build();
    counting.reset(); // the builder detected the dialect on a connection of its own
    AtomicInteger calls = new AtomicInteger();
    try (Connection connection = counting.getConnection()) {
      connection.setAutoCommit(false);
      plain.runWithConnection(connection, c -> {
        addToBalance(connection, 100); // the application's lock on the row; the body needs it too
        IdemEngine.of(plain).execute(PAY, new Object[] {"k9"}, new Object[] {5L}, () -> {
          calls.incrementAndGet();
          addToBalance(plain.currentConnection(), 5);
          return "ok";
        });
        assertThrows(IllegalStateException.class, () -> plain.afterCommit(() -> {}));
        assertThrows(IllegalStateException.class, c::commit);
      });
      assertFalse(connection.isClosed(), "idem never closes the application's connection");
      connection.rollback();
      assertEquals(0, records());
      assertEquals(0, balance());

      assertEquals("ok", plain.withConnection(connection, c -> IdemEngine.of(plain).execute(PAY,
          new Object[] {"k9"}, new Object[] {5L}, () -> {
            calls.incrementAndGet();
            addToBalance(plain.currentConnection(), 5);
            return "ok";
          })));
      connection.commit();
      connection.setAutoCommit(true);
      assertEquals(1, records());
      assertEquals(5, balance());
      assertEquals(2, calls.get());
      assertEquals(1, counting.connectionsObtained(), "idem used the given connection only");

      IllegalStateException autoCommit = assertThrows(IllegalStateException.class,
          () -> plain.withConnection(connection, c -> null));
      assertTrue(autoCommit.getMessage().contains("setAutoCommit(false)"), autoCommit.getMessage());
    }
  }

  @Test
  void claimCommandsRefuseToJoinTheApplicationsTransaction() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    CommandBody<String> body = () -> {
      calls.incrementAndGet();
      return "charged";
    };
    app.inTransaction(connection -> {
      IllegalStateException refused = assertThrows(IllegalStateException.class,
          () -> IdemEngine.of(runtime).execute(CLAIMED, new Object[] {"k10"}, new Object[] {5L}, body));
      assertTrue(refused.getMessage().contains("Gateway.charge"), refused.getMessage());
      assertTrue(refused.getMessage().contains("application's transaction"), refused.getMessage());
      assertTrue(refused.getMessage().contains("claim must commit before its work starts"), refused.getMessage());
      return null;
    });
    try (Connection connection = counting.getConnection()) {
      connection.setAutoCommit(false);
      IllegalStateException refused = assertThrows(IllegalStateException.class, () -> runtime.withConnection(
          connection, c -> IdemEngine.of(runtime).execute(CLAIMED, new Object[] {"k10"}, new Object[] {5L}, body)));
      assertTrue(refused.getMessage().contains("withConnection"), refused.getMessage());
      connection.rollback();
      connection.setAutoCommit(true);
    }
    assertEquals(0, calls.get());
    assertEquals("charged", IdemEngine.of(runtime).execute(CLAIMED, new Object[] {"k10"}, new Object[] {5L}, body),
        "outside the application's transaction it runs");
    assertEquals(1, calls.get());
  }
}
