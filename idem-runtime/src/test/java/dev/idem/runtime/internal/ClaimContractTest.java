package dev.idem.runtime.internal;

import dev.idem.runtime.Dialect;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyListener;
import dev.idem.runtime.IdempotencyInProgressException;
import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.runtime.IdempotencyLeaseLostException;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.idem.InFlight;
import dev.idem.Mode;
import dev.idem.testing.DatabaseContract;
import dev.idem.testing.RecordingListener;
import dev.idem.testing.TestDatabase;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour of {@link Mode#CLAIM} commands, of {@code replayOn} in both modes and of the result cache, called
 * exactly as generated code calls {@link IdemRuntime#execute}. Runs against every database through the concrete
 * subclasses.
 */
abstract class ClaimContractTest extends DatabaseContract {

  /** A business outcome, as a user would write it: message plus a value field, each with an accessor. */
  static final class CardDeclinedException extends Exception {
    private static final long serialVersionUID = 1L;
    private final String declineCode;

    CardDeclinedException(String message, String declineCode) {
      super(message);
      this.declineCode = declineCode;
    }

    String declineCode() {
      return declineCode;
    }
  }

  /** What the processor generates for {@code replayOn = CardDeclinedException.class}. */
  private static final ReplayableFailure<CardDeclinedException> CARD_DECLINED = ReplayableFailure.of(
      CardDeclinedException.class,
      e -> new Object[] {e.getMessage(), e.declineCode()},
      arguments -> new CardDeclinedException((String) arguments[0], (String) arguments[1]),
      String.class, String.class);

  private static final CommandSpec<String> CHARGE = claimSpec("Gateway.charge", InFlight.FAIL)
      .replayOn(CARD_DECLINED).build();
  private static final CommandSpec<String> CHARGE_WAITING = claimSpec("Gateway.chargeWaiting", InFlight.WAIT)
      .waitTimeout(Duration.ofSeconds(20)).build();
  private static final CommandSpec<String> CHARGE_WAITING_BRIEFLY =
      claimSpec("Gateway.chargeWaitingBriefly", InFlight.WAIT).waitTimeout(Duration.ofMillis(300)).build();
  private static final CommandSpec<List<String>> LIST = CommandSpec
      .builder("Gateway.list", new ResultType<List<String>>() {}).mode(Mode.CLAIM).keyParts("id").build();
  private static final CommandSpec<String> SHORT_RETENTION = claimSpec("Gateway.shortRetention", InFlight.FAIL)
      .retention(Duration.ofSeconds(1)).build();
  private static final CommandSpec<String> TRANSACTIONAL_CHARGE =
      CommandSpec.builder("Ledger.charge", ResultType.of(String.class)).keyParts("id").payload("amount")
          .replayOn(CARD_DECLINED).build();

  private static CommandSpec.Builder<String> claimSpec(String scope, InFlight onInFlight) {
    return CommandSpec.builder(scope, ResultType.of(String.class))
        .mode(Mode.CLAIM)
        .lease(Duration.ofSeconds(30))
        .onInFlight(onInFlight)
        .retention(Duration.ofDays(1))
        .keyParts("id")
        .payload("amount");
  }

  private IdemRuntime runtime;


  @Override
  protected void prepare() {
    runtime = IdemRuntime.builder()
        .dataSource(counting)
        .clock(clock).databaseTime(false)
        .listener(RecordingListener.keysOnly(IdempotencyListener.class, events))
        .build();
    runtime.createSchema();
    database.execute("CREATE TABLE payments (id VARCHAR(64) NOT NULL PRIMARY KEY)");
  }

  @BeforeEach
  void clear() {
    database.execute("DELETE FROM idem_record", "DELETE FROM payments");
    runtime.clearResultCache();
    clock.set(Instant.parse("2030-01-01T00:00:00Z"));
    counting.reset();
    events.clear();
  }

  // ---- helpers

  private String charge(CommandSpec<String> spec, String id, long amount, CommandBody<String> body) {
    return IdemEngine.of(runtime).execute(spec, new Object[] {id}, new Object[] {amount}, body);
  }

  private void insertPayment(String id) throws SQLException {
    try (PreparedStatement insert = runtime.currentConnection()
        .prepareStatement("INSERT INTO payments (id) VALUES (?)")) {
      insert.setString(1, id);
      insert.executeUpdate();
    }
  }

  private List<String> column(String sql) {
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      List<String> values = new ArrayList<>();
      while (rs.next()) {
        values.add(rs.getString(1));
      }
      return values;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private String state(String key) {
    List<String> states = column("SELECT state FROM idem_record WHERE idem_key = '" + key + "'");
    return states.isEmpty() ? null : states.get(0);
  }

  private long count(String table) {
    return Long.parseLong(column("SELECT COUNT(*) FROM " + table).get(0));
  }

  /** Runs {@code call} on another thread; its outcome is the future's. */
  private static <T> Future<T> inBackground(ExecutorService pool, java.util.concurrent.Callable<T> call) {
    return pool.submit(call);
  }

  private static Throwable failureOf(Future<?> future) throws InterruptedException, java.util.concurrent.TimeoutException {
    return failureOf(future, 60);
  }

  private static Throwable failureOf(Future<?> future, int seconds)
      throws InterruptedException, java.util.concurrent.TimeoutException {
    try {
      future.get(seconds, TimeUnit.SECONDS);
      return null;
    } catch (java.util.concurrent.ExecutionException e) {
      return e.getCause();
    }
  }

  // ---- claim, completion, replay

  @Test
  void theClaimIsCommittedBeforeTheBodyRunsAndCompletionCommitsWithTheBodysWrites() {
    AtomicInteger calls = new AtomicInteger();
    String result = charge(CHARGE, "c-1", 100, () -> {
      calls.incrementAndGet();
      // Seen from another connection: the claim is already durable, the body's own write is not yet.
      assertEquals("IN_PROGRESS", state("c-1"));
      assertEquals(1, column("SELECT owner_token FROM idem_record WHERE owner_token IS NOT NULL").size());
      assertEquals(String.valueOf(clock.millis() + 30_000),
          column("SELECT lease_until FROM idem_record").get(0));
      insertPayment("p-1");
      assertEquals(0, count("payments"));
      return "charged";
    });
    assertEquals("charged", result);
    assertEquals("COMPLETED", state("c-1"));
    assertEquals(1, count("payments"));
    assertEquals("charged", charge(CHARGE, "c-1", 100, () -> fail("replayed, not run")));
    assertEquals(1, calls.get());
    assertEquals(List.of("claimed c-1", "completed c-1", "replayed c-1"), decisions());
  }

  @Test
  void aSecondCallerFailsFastWhileTheFirstIsWorking() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<String> first = inBackground(pool, () -> charge(CHARGE, "c-2", 5, () -> {
        started.countDown();
        assertTrue(release.await(30, TimeUnit.SECONDS));
        return "first";
      }));
      assertTrue(started.await(30, TimeUnit.SECONDS));

      IdempotencyInProgressException e = assertThrows(IdempotencyInProgressException.class,
          () -> charge(CHARGE, "c-2", 5, () -> fail("must not run")));
      assertEquals(Instant.ofEpochMilli(clock.millis() + 30_000), e.leaseEndsAt());
      assertEquals("Gateway.charge", e.scope());
      assertEquals("c-2", e.key());
      assertTrue(events.contains("inFlightRejected c-2"));
      // The payload rule holds while in flight too.
      assertThrows(IdempotencyKeyReusedException.class, () -> charge(CHARGE, "c-2", 6, () -> fail()));

      release.countDown();
      assertEquals("first", first.get(30, TimeUnit.SECONDS));
      assertEquals("first", charge(CHARGE, "c-2", 5, () -> fail()));
    } finally {
      release.countDown();
      pool.shutdownNow();
    }
  }

  @Test
  void aWaitingCallerGetsTheFirstCallersResult() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<String> first = inBackground(pool, () -> charge(CHARGE_WAITING, "c-3", 5, () -> {
        calls.incrementAndGet();
        started.countDown();
        assertTrue(release.await(30, TimeUnit.SECONDS));
        return "first";
      }));
      assertTrue(started.await(30, TimeUnit.SECONDS));
      Future<String> second = inBackground(pool, () -> charge(CHARGE_WAITING, "c-3", 5, () -> {
        calls.incrementAndGet();
        return "second";
      }));
      Thread.sleep(300);
      assertFalse(second.isDone(), "waits while the first works");
      release.countDown();
      assertEquals("first", first.get(30, TimeUnit.SECONDS));
      assertEquals("first", second.get(30, TimeUnit.SECONDS));
      assertEquals(1, calls.get());
    } finally {
      release.countDown();
      pool.shutdownNow();
    }
  }

  @Test
  void aWaitingCallerGivesUpAfterTheWaitTimeout() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<String> first = inBackground(pool, () -> charge(CHARGE_WAITING_BRIEFLY, "c-4", 5, () -> {
        started.countDown();
        assertTrue(release.await(30, TimeUnit.SECONDS));
        return "first";
      }));
      assertTrue(started.await(30, TimeUnit.SECONDS));
      long start = System.nanoTime();
      IdempotencyInProgressException e = assertThrows(IdempotencyInProgressException.class,
          () -> charge(CHARGE_WAITING_BRIEFLY, "c-4", 5, () -> fail("must not run")));
      long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertTrue(waitedMillis >= 290 && waitedMillis < 5_000, "waited " + waitedMillis + " ms");
      assertEquals(Instant.ofEpochMilli(clock.millis() + 30_000), e.leaseEndsAt());
      release.countDown();
      assertEquals("first", first.get(30, TimeUnit.SECONDS));
    } finally {
      release.countDown();
      pool.shutdownNow();
    }
  }

  @Test
  void aClaimCannotJoinAnOuterTransaction() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> runtime.runInTransaction(connection -> charge(CHARGE, "c-5", 1, () -> "x")));
    assertTrue(e.getMessage().contains("must commit before its work starts"), e.getMessage());
    assertEquals(0, count("idem_record"));
  }

  // ---- leases

  /** Plants the claim of a caller that died: in progress, its lease ended a moment ago. */
  private void plantDeadClaim(String key, long amount) {
    String fingerprint = Fingerprinter.fingerprint(CHARGE, new Object[] {amount});
    long now = clock.millis();
    database.execute("INSERT INTO idem_record (scope, idem_key, state, fingerprint, owner_token, lease_until,"
        + " created_at, expires_at) VALUES ('Gateway.charge', '" + key + "', 'IN_PROGRESS', '" + fingerprint
        + "', 'dead-owner', " + (now - 1) + ", " + (now - 30_001) + ", " + (now + 86_400_000L) + ")");
  }

  @Test
  void exactlyOneOfSixteenRacingCallersTakesOverAnEndedLease() throws Exception {
    plantDeadClaim("c-6", 7);
    int callers = 16;
    CountDownLatch start = new CountDownLatch(1);
    CountDownLatch othersDone = new CountDownLatch(callers - 1);
    AtomicInteger bodies = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    try {
      List<Future<String>> futures = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        futures.add(pool.submit(() -> {
          start.await();
          try {
            return charge(CHARGE, "c-6", 7, () -> {
              bodies.incrementAndGet();
              // The winner keeps its new lease until every loser has been turned away.
              assertTrue(othersDone.await(60, TimeUnit.SECONDS));
              return "winner";
            });
          } catch (IdempotencyInProgressException e) {
            othersDone.countDown();
            throw e;
          }
        }));
      }
      start.countDown();
      int won = 0;
      int rejected = 0;
      for (Future<String> future : futures) {
        Throwable failure = failureOf(future);
        if (failure == null) {
          won++;
        } else if (failure instanceof IdempotencyInProgressException) {
          rejected++;
        } else {
          throw new AssertionError("unexpected failure", failure);
        }
      }
      assertEquals(1, won);
      assertEquals(callers - 1, rejected);
      assertEquals(1, bodies.get());
      assertEquals(1, events.stream().filter(e -> e.equals("takenOver c-6")).count());
      assertEquals("winner", charge(CHARGE, "c-6", 7, () -> fail()));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aStaleOwnerCompletingAfterATakeoverIsRejectedAndTheNewOwnersResultStands() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      IdempotencyLeaseLostException lost = assertThrows(IdempotencyLeaseLostException.class,
          () -> charge(CHARGE, "c-7", 9, () -> {
            insertPayment("stale");
            clock.advance(Duration.ofSeconds(31)); // this caller stalls past its lease...
            // ... and another caller takes the key over and completes meanwhile.
            assertEquals("new owner", pool.submit(() -> charge(CHARGE, "c-7", 9, () -> {
              insertPayment("new");
              return "new owner";
            })).get(30, TimeUnit.SECONDS));
            return "stale owner";
          }));
      assertEquals("c-7", lost.key());
      assertEquals(List.of("new"), column("SELECT id FROM payments"), "the stale owner's writes rolled back");
      runtime.clearResultCache();
      assertEquals("new owner", charge(CHARGE, "c-7", 9, () -> fail()));
      assertTrue(events.contains("takenOver c-7"));
      assertTrue(events.contains("leaseLost c-7"));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void extendLeaseKeepsALongRunningBodyFromBeingTakenOver() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      assertEquals("done", charge(CHARGE, "c-8", 1, () -> {
        clock.advance(Duration.ofSeconds(25));
        assertTrue(runtime.extendLease(Duration.ofSeconds(30)));
        clock.advance(Duration.ofSeconds(25)); // past the first lease, within the extended one
        Throwable second = failureOf(pool.submit(() -> charge(CHARGE, "c-8", 1, () -> "intruder")));
        assertTrue(second instanceof IdempotencyInProgressException, String.valueOf(second));
        // The extension is in the body's open transaction (no second pooled connection): not visible yet, but its
        // row lock shows the owner alive; the hint is a lease from now.
        assertTrue(((IdempotencyInProgressException) second).leaseEndsAt().isAfter(clock.instant()));
        return "done";
      }));
      assertThrows(IllegalStateException.class, () -> runtime.extendLease(Duration.ofSeconds(1)));
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * A competitor's claim of the key that has not committed yet (held open here, as an auto-commit insert is for the
   * moment its commit takes) is waited for, never spun on: once it commits, this caller sees the key in flight.
   * Where the claim does not wait for row locks (MariaDB), the lock error sends it to a read that finds nothing, and
   * then to the waiting claim.
   */
  @Test
  void aCompetitorsUncommittedClaimIsWaitedForThenSeenInFlight() throws Exception {
    assertInstanceOf(IdempotencyInProgressException.class, raceAnUncommittedClaim("c-19", true));
    assertEquals("IN_PROGRESS", state("c-19"));
    assertEquals(List.of("competitor"), column("SELECT owner_token FROM idem_record WHERE idem_key = 'c-19'"));
  }

  /** As above, but the competitor's claim rolls back: then this caller claims the key and runs. */
  @Test
  void aCompetitorsClaimThatRollsBackLeavesTheKeyToTheWaitingCaller() throws Exception {
    assertEquals("charged", raceAnUncommittedClaim("c-20", false));
    assertEquals("COMPLETED", state("c-20"));
  }

  /**
   * Inserts the key's IN_PROGRESS claim in an open transaction, starts a call of the same key, checks that the call
   * is still waiting 300 ms later, then commits or rolls back the competing claim: the call's result, or what it
   * threw.
   */
  private Object raceAnUncommittedClaim(String key, boolean commit) throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (Connection competitor = database.dataSource().getConnection()) {
      competitor.setAutoCommit(false);
      long now = clock.millis();
      try (PreparedStatement claim = competitor.prepareStatement("INSERT INTO idem_record (scope, idem_key, state,"
          + " fingerprint, owner_token, lease_until, created_at, expires_at) VALUES (?, ?, 'IN_PROGRESS', ?,"
          + " 'competitor', ?, ?, ?)")) {
        claim.setString(1, CHARGE.scope());
        claim.setString(2, key);
        claim.setString(3, Fingerprinter.fingerprint(CHARGE, new Object[] {7L}));
        claim.setLong(4, now + 30_000);
        claim.setLong(5, now);
        claim.setLong(6, now + 30_000 + Duration.ofDays(1).toMillis());
        claim.executeUpdate();
      }
      Future<String> call = inBackground(pool, () -> charge(CHARGE, key, 7, () -> "charged"));
      Thread.sleep(300);
      assertFalse(call.isDone(), "the call must wait for the competing claim, not give up or claim past it");
      if (commit) {
        competitor.commit();
      } else {
        competitor.rollback();
      }
      Throwable failure = failureOf(call);
      return failure != null ? failure : call.get();
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * A live owner holds its record's row lock in its open transaction (a lease extension, or its completion, not
   * committed yet): a claim of the key neither waits for that lock nor inserts; it sees the committed record in
   * flight while the lock is still held. (H2 claims with a plain INSERT, whose primary-key check does not wait for
   * that lock: see H2ClaimContractTest; PostgreSQL checks with NOT EXISTS; MariaDB claims with a lock wait of zero.)
   */
  @Test
  void aClaimOfARecordedKeyWhoseOwnerHoldsItsRowLockDoesNotWait() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      int n = 0;
      for (String ownersStatement : List.of(
          "UPDATE idem_record SET lease_until = lease_until + 1000, expires_at = expires_at + 1000 WHERE idem_key = ?",
          "UPDATE idem_record SET state = 'COMPLETED', owner_token = NULL, lease_until = NULL WHERE idem_key = ?")) {
        String key = "c-locked-" + n++;
        String fingerprint = Fingerprinter.fingerprint(CHARGE, new Object[] {7L});
        long now = clock.millis();
        database.execute("INSERT INTO idem_record (scope, idem_key, state, fingerprint, owner_token, lease_until,"
            + " created_at, expires_at) VALUES ('Gateway.charge', '" + key + "', 'IN_PROGRESS', '" + fingerprint
            + "', 'live-owner', " + (now + 30_000) + ", " + now + ", " + (now + 30_000 + 86_400_000L) + ")");
        try (Connection owner = database.dataSource().getConnection()) {
          owner.setAutoCommit(false);
          try (PreparedStatement lock = owner.prepareStatement(ownersStatement)) {
            lock.setString(1, key);
            assertEquals(1, lock.executeUpdate());
          }
          Future<String> call = inBackground(pool, () -> charge(CHARGE, key, 7, () -> "intruder"));
          Throwable failure;
          try {
            failure = failureOf(call, 10);
          } catch (java.util.concurrent.TimeoutException e) {
            call.cancel(true);
            throw new AssertionError("the claim of " + key + " waited for the owner's row lock (" + ownersStatement
                + ")", e);
          } finally {
            owner.rollback();
          }
          assertInstanceOf(IdempotencyInProgressException.class, failure, ownersStatement);
        }
        assertEquals(List.of("live-owner"),
            column("SELECT owner_token FROM idem_record WHERE idem_key = '" + key + "'"));
      }
      assertEquals(0, count("payments"));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void extendLeaseReportsALostLease() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      assertThrows(IdempotencyLeaseLostException.class, () -> charge(CHARGE, "c-9", 1, () -> {
        clock.advance(Duration.ofSeconds(31));
        pool.submit(() -> charge(CHARGE, "c-9", 1, () -> "taker")).get(30, TimeUnit.SECONDS);
        assertFalse(runtime.extendLease(Duration.ofSeconds(30)));
        return "too late";
      }));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void purgeLeavesLiveLeasesAlone() throws Exception {
    ExecutorService purger = Executors.newSingleThreadExecutor(); // purges run outside transactions and bodies
    try {
      assertEquals("ok", charge(SHORT_RETENTION, "c-10", 1, () -> {
        clock.advance(Duration.ofSeconds(10)); // past the retention, within the lease
        assertEquals(0L, purger.submit(() -> runtime.purgeExpired(100)).get(30, TimeUnit.SECONDS));
        assertEquals("IN_PROGRESS", state("c-10"));
        return "ok";
      }));
      clock.advance(Duration.ofSeconds(1));
      assertEquals(1, runtime.purgeExpired(100), "once completed, retention counts from completion");
    } finally {
      purger.shutdownNow();
    }
  }

  // ---- failures of the body

  @Test
  void anExceptionNotListedInReplayOnReleasesTheKey() {
    IOException down = new IOException("gateway down");
    try {
      charge(CHARGE, "c-11", 1, () -> {
        insertPayment("undone");
        throw down;
      });
      fail();
    } catch (Exception e) {
      assertSame(down, e);
    }
    assertNull(state("c-11"));
    assertEquals(0, count("payments"));
    assertTrue(events.contains("released c-11"));
    AtomicInteger calls = new AtomicInteger();
    assertEquals("retried", charge(CHARGE, "c-11", 1, () -> {
      calls.incrementAndGet();
      return "retried";
    }));
    assertEquals(1, calls.get());
  }

  @Test
  void aDeclinedCardIsReplayedInClaimMode() {
    assertDeclinedCardReplays(CHARGE, "c-12");
  }

  @Test
  void aDeclinedCardIsReplayedInTransactionalMode() {
    assertDeclinedCardReplays(TRANSACTIONAL_CHARGE, "c-13");
  }

  private void assertDeclinedCardReplays(CommandSpec<String> spec, String key) {
    AtomicInteger calls = new AtomicInteger();
    CardDeclinedException original = new CardDeclinedException("Card declined", "insufficient_funds");
    CommandBody<String> body = () -> {
      calls.incrementAndGet();
      insertPayment("attempt-" + calls.get());
      throw original;
    };
    CardDeclinedException first = assertThrows(CardDeclinedException.class, () -> charge(spec, key, 3, body));
    assertSame(original, first);
    CardDeclinedException fromCache = assertThrows(CardDeclinedException.class, () -> charge(spec, key, 3, body));
    runtime.clearResultCache();
    CardDeclinedException fromTable = assertThrows(CardDeclinedException.class, () -> charge(spec, key, 3, body));
    for (CardDeclinedException replayed : List.of(fromCache, fromTable)) {
      assertNotSame(original, replayed);
      assertEquals(CardDeclinedException.class, replayed.getClass());
      assertEquals("Card declined", replayed.getMessage());
      assertEquals("insufficient_funds", replayed.declineCode());
    }
    assertEquals(1, calls.get());
    assertEquals(0, count("payments"), "the body's writes rolled back");
    assertEquals("COMPLETED", state(key));
    assertThrows(IdempotencyKeyReusedException.class, () -> charge(spec, key, 4, body));
  }

  // ---- the result cache

  @Test
  void cacheHitsNeverTouchTheDatabaseInEitherMode() {
    for (CommandSpec<String> spec : List.of(CHARGE, TRANSACTIONAL_CHARGE)) {
      charge(spec, "c-14", 2, () -> "stored");
      counting.reset();
      assertEquals("stored", charge(spec, "c-14", 2, () -> fail()));
      assertThrows(IdempotencyKeyReusedException.class, () -> charge(spec, "c-14", 3, () -> fail()));
      assertEquals(0, counting.connectionsObtained(), spec.scope());
    }
  }

  @Test
  void cachedRecordsRespectTheRetention() {
    AtomicInteger calls = new AtomicInteger();
    CommandBody<String> body = () -> "run " + calls.incrementAndGet();
    assertEquals("run 1", charge(CHARGE, "c-15", 2, body));
    clock.advance(Duration.ofDays(1).minusMillis(1));
    assertEquals("run 1", charge(CHARGE, "c-15", 2, body));
    clock.advance(Duration.ofMillis(1));
    counting.reset();
    assertEquals("run 2", charge(CHARGE, "c-15", 2, body), "expired: runs anew");
    assertTrue(counting.connectionsObtained() > 0);
    assertTrue(events.contains("takenOver c-15"));
  }

  @Test
  void callersMutatingAReplayedResultCannotCorruptTheCache() {
    List<String> original = new ArrayList<>(List.of("a", "b"));
    List<String> first = IdemEngine.of(runtime).execute(LIST, new Object[] {"c-16"}, new Object[0], () -> original);
    first.add("mutated by the first caller");
    List<String> second = IdemEngine.of(runtime).execute(LIST, new Object[] {"c-16"}, new Object[0], () -> fail());
    assertEquals(List.of("a", "b"), second);
    second.add("mutated by the second caller");
    assertEquals(List.of("a", "b"), IdemEngine.of(runtime).execute(LIST, new Object[] {"c-16"}, new Object[0], () -> fail()));
  }

  @Test
  void aDisabledCacheReadsTheTableEveryTime() {
    IdemRuntime uncached = IdemRuntime.builder().dataSource(counting).clock(clock).databaseTime(false).resultCache(false).build();
    IdemEngine.of(uncached).execute(CHARGE, new Object[] {"c-17"}, new Object[] {1L}, () -> "stored");
    counting.reset();
    assertEquals("stored", IdemEngine.of(uncached).execute(CHARGE, new Object[] {"c-17"}, new Object[] {1L}, () -> fail()));
    assertEquals(1, counting.connectionsObtained());
  }

  @Test
  void theListenerSeesEveryDecision() {
    charge(CHARGE, "c-18", 1, () -> "x");
    charge(CHARGE, "c-18", 1, () -> fail());
    assertThrows(IdempotencyKeyReusedException.class, () -> charge(CHARGE, "c-18", 2, () -> fail()));
    assertEquals(List.of("claimed c-18", "completed c-18", "replayed c-18", "keyReused c-18"), decisions());
  }

  /**
   * A first execution's statements on idem_record: where the claim skips a recorded key without waiting for its row
   * lock (PostgreSQL, H2: NOT EXISTS; MariaDB: a lock wait of zero), the claim alone, then the completion; on MySQL,
   * which cannot, a plain read first. The clock's measurement is off in this class (databaseTime(false)), so nothing
   * else is counted.
   */
  @Test
  void aFirstExecutionClaimsWithOneStatementWhereTheDialectAllows() throws SQLException {
    Dialect dialect = runtime.dialect();
    SqlDialect sql = SqlDialect.of(dialect);
    boolean noWait;
    try (Connection connection = database.dataSource().getConnection()) {
      noWait = sql.noWaitLeaseClaimSql("idem_record", connection.getMetaData()) != null;
    }
    if (dialect == Dialect.MARIADB) {
      assertTrue(noWait, "these tests run on MariaDB servers, whose claim never waits: the one-statement path");
    }
    counting.reset();
    assertEquals("charged", charge(CHARGE, "c-statements", 5, () -> "charged"));
    long claimStatements = sql.leaseClaimSkipsRecordedKeys() || noWait ? 1 : 2;
    assertEquals(claimStatements + 1 + OwnTransactionStatements.statementsFor(dialect, 1),
        counting.statementsExecuted(), "claim, then the fenced completion (MariaDB: in START TRANSACTION .. COMMIT)");
    assertEquals(OwnTransactionStatements.commitCallsFor(dialect, 1), counting.counts().commits(),
        "the completion's commit (the claim committed in auto-commit)");
    OwnTransactionStatements.assertCommitted(counting, dialect, 1);
    assertEquals(claimStatements, counting.counts().autoCommitStatements(), "only the claim commits on its own");
  }

  /** The recorded decisions, without the latency events (one commandFinished per call, with a varying time). */
  private List<String> decisions() {
    return events.stream().filter(event -> !event.startsWith("commandFinished ")).toList();
  }
}
