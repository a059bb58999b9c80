package dev.idem.integration.lookups;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.integration.lookups.Notifications.Accepted;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.testing.CountingDataSource.Counts;
import dev.idem.testing.DatabaseContract;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Commands that set nothing about reading first, on a real database: they claim first while their calls are
 * mostly first executions, read the key's record first (one statement in auto-commit for a retry) once most of
 * their calls are retries, and claim first again when first executions return; with
 * {@code adaptiveLookupFirst(false)} they always claim first. Either way every key runs once. Subclasses pick the
 * database.
 */
abstract class AdaptiveLookupFirstContractTest extends DatabaseContract {

  /** More calls than the share needs to cross either threshold from the other bound (about a dozen). */
  private static final int ENOUGH = 40;

  private final AtomicInteger executions = new AtomicInteger();
  private final ExecutorService callers = Executors.newFixedThreadPool(8);
  private IdemRuntime runtime;
  private Notifications notifications;

  @Override
  protected void prepare() {
    IdemRuntime.builder().dataSource(database.dataSource()).build().createSchema();
  }

  @BeforeEach
  void freshRuntime() {
    database.execute("DELETE FROM idem_record");
    executions.set(0);
    clock.set(Instant.parse("2031-05-01T10:00:00Z"));
    runtime = runtime(true);
    notifications = notifications(runtime);
  }

  @AfterEach
  void closeRuntime() {
    runtime.close();
  }

  @AfterAll
  void stopCallers() {
    callers.shutdownNow();
  }

  private IdemRuntime runtime(boolean adaptive) {
    return IdemRuntime.builder().dataSource(counting).clock(clock).databaseTime(false).resultCache(false)
        .adaptiveLookupFirst(adaptive).build();
  }

  private Notifications notifications(IdemRuntime on) {
    Notifications delegate = new Notifications() {
      @Override
      public Accepted accept(String notificationId, String text) {
        return new Accepted(notificationId, text, executions.incrementAndGet());
      }

      @Override
      public Accepted relay(String notificationId, String text) {
        return new Accepted(notificationId, text, executions.incrementAndGet());
      }
    };
    return new Notifications_Idempotent(delegate, on);
  }

  /** Accepts {@code key} once and retries it until the command reads first; every retry gets the first result. */
  private Accepted acceptedAndRetried(String key) {
    Accepted first = notifications.accept(key, "hello");
    for (int i = 0; i < ENOUGH; i++) {
      assertEquals(first, notifications.accept(key, "hello"));
    }
    return first;
  }

  @Test
  void firstExecutionsClaimFirst() {
    for (int i = 0; i < ENOUGH; i++) {
      notifications.accept("n-" + i, "hello");
    }
    counting.reset();
    notifications.accept("n-new", "hello");

    List<String> sql = Calls.idemStatements(counting.executedSql());
    assertTrue(sql.get(0).contains("INSERT"), "no read before the claim: " + sql);
    assertEquals(ENOUGH + 1, executions.get());
  }

  @Test
  void aCommandWhoseCallsAreMostlyRetriesAnswersARetryWithOneRead() {
    Accepted first = acceptedAndRetried("n-1");
    counting.reset();

    assertEquals(first, notifications.accept("n-1", "hello"));

    assertEquals(new Counts(1, 1, 1, 0, 0, 0, 0), counting.counts(),
        "one connection, one statement in auto-commit, no commit, no rollback, no transaction");
    assertTrue(counting.executedSql().get(0).toUpperCase(Locale.ROOT).startsWith("SELECT"),
        counting.executedSql().toString());
    assertEquals(1, executions.get());
  }

  @Test
  void whileReadingFirstANewKeyIsReadThenClaimedAndRunsOnce() {
    Accepted first = acceptedAndRetried("n-1");
    counting.reset();

    Accepted other = notifications.accept("n-2", "bonjour");

    List<String> sql = Calls.idemStatements(counting.executedSql());
    assertTrue(sql.get(0).startsWith("SELECT"), sql.toString());
    assertTrue(sql.get(1).contains("INSERT"), "the claim follows the read and decides: " + sql);
    assertEquals(new Accepted("n-2", "bonjour", 2), other);
    assertEquals(first, notifications.accept("n-1", "hello"));
  }

  @Test
  void whenFirstExecutionsReturnTheCommandClaimsFirstAgain() {
    acceptedAndRetried("n-1");
    for (int i = 0; i < ENOUGH; i++) {
      notifications.accept("fresh-" + i, "hello");
    }
    counting.reset();

    notifications.accept("fresh-last", "hello");

    List<String> sql = Calls.idemStatements(counting.executedSql());
    assertTrue(sql.get(0).contains("INSERT"), "claiming first again: " + sql);
  }

  @Test
  void aKeyReusedWithAnotherPayloadCountsAsFoundAndIsRefusedFromTheRead() {
    notifications.accept("n-1", "hello");
    for (int i = 0; i < ENOUGH; i++) {
      assertThrows(IdempotencyKeyReusedException.class, () -> notifications.accept("n-1", "goodbye"));
    }
    counting.reset();

    assertThrows(IdempotencyKeyReusedException.class, () -> notifications.accept("n-1", "goodbye"));

    assertEquals(1, counting.statementsExecuted(), "refused by the read: " + counting.executedSql());
    assertEquals(1, executions.get());
    assertEquals(new Accepted("n-1", "hello", 1), notifications.accept("n-1", "hello"), "the first record stands");
  }

  @Test
  void claimCommandsLearnTheirShareOfRetriesToo() {
    Accepted first = notifications.relay("r-1", "to-erp");
    for (int i = 0; i < ENOUGH; i++) {
      notifications.relay("r-1", "to-erp");
    }
    counting.reset();

    assertEquals(first, notifications.relay("r-1", "to-erp"));

    assertEquals(new Counts(1, 1, 1, 0, 0, 0, 0), counting.counts());
    assertEquals(1, executions.get());
  }

  @Test
  void eachCommandKeepsItsOwnShare() {
    Accepted first = acceptedAndRetried("n-1");
    notifications.relay("r-1", "to-erp");
    counting.reset();

    notifications.relay("r-2", "to-erp");

    List<String> sql = Calls.idemStatements(counting.executedSql());
    assertTrue(sql.get(0).contains("INSERT"), "relay's calls were first executions: " + sql);
    assertEquals(first, notifications.accept("n-1", "hello"));
  }

  @Test
  void insideATransactionTheClaimComesFirstWhateverTheShare() {
    Accepted first = acceptedAndRetried("n-1");
    counting.reset();

    Accepted replayed = runtime.inTransaction(connection -> notifications.accept("n-1", "hello"));

    assertEquals(first, replayed);
    List<String> sql = Calls.idemStatements(counting.executedSql());
    assertTrue(sql.get(0).contains("INSERT"), "no read before the claim: " + sql);
    assertEquals(1, counting.connectionsObtained(), "the transaction's connection alone");
  }

  @Test
  void turnedOffACommandAlwaysClaimsFirst() {
    runtime.close();
    runtime = runtime(false);
    notifications = notifications(runtime);
    Accepted first = acceptedAndRetried("n-1");
    counting.reset();

    assertEquals(first, notifications.accept("n-1", "hello"));

    List<String> sql = Calls.idemStatements(counting.executedSql());
    assertTrue(sql.get(0).contains("INSERT"), "the claim, then the read of the record it found: " + sql);
    assertEquals(1, executions.get());
  }

  @Test
  void concurrentRetriesAndFirstCallsWhileSwitchingRunEveryKeyOnce() throws Exception {
    for (int round = 0; round < 6; round++) {
      // Rounds alternate between mostly retries and all first executions, so calls race across the switches.
      boolean retries = round % 2 == 0;
      executions.set(0);
      String prefix = (retries ? "hot-" : "cold-") + round + "-";
      Set<Accepted> results = Calls.raced(callers, 64,
          i -> () -> notifications.accept(prefix + (retries ? i % 4 : i), "hello"));
      int keys = retries ? 4 : 64;
      assertEquals(keys, executions.get(), "round " + round + ": each key's body ran once");
      assertEquals(keys, results.size(), "round " + round + ": every call of a key got its first result");
    }
  }

}
