package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.InFlight;
import dev.idem.Mode;
import dev.idem.runtime.Dialect;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyLeaseLostException;
import dev.idem.runtime.IdempotencyInProgressException;
import dev.idem.runtime.IdempotencyListener;
import dev.idem.runtime.IdempotencyRecord;
import dev.idem.runtime.TransitionListener;
import dev.idem.testing.DatabaseContract;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Runtimes whose clocks are minutes apart on one database (issue #10, item 2): leases, takeovers, expiry and purges
 * follow the database's clock, so a caller ahead never takes over a live lease, an owner behind keeps its lease, and
 * a purger ahead deletes nothing inside retention; and a runtime on the system clock whose wall clock steps right
 * after a measurement (NTP step, VM resume) goes on by its monotonic time until the next one.
 */
@Timeout(60)
abstract class ClockSkewContractTest extends DatabaseContract {

  private static final CommandSpec<String> CHARGE = CommandSpec.builder("Skew.charge", ResultType.of(String.class))
      .mode(Mode.CLAIM).lease(Duration.ofSeconds(30)).onInFlight(InFlight.FAIL).retention(Duration.ofMinutes(5))
      .keyParts("id").build();
  private static final CommandSpec<String> TRANSFER =
      CommandSpec.builder("Skew.transfer", ResultType.of(String.class)).retention(Duration.ofMinutes(5))
          .keyParts("id").build();

  private final ExecutorService otherCaller = Executors.newSingleThreadExecutor();

  @Override
  protected void prepare() {
    IdemRuntime.builder().dataSource(database.dataSource()).build().createSchema();
  }

  @BeforeEach
  void clear() {
    database.execute("DELETE FROM idem_record");
  }

  @AfterAll
  void stop() {
    otherCaller.shutdownNow();
  }

  /** A runtime whose clock is {@code skew} off the true time (and so off the database's). */
  private IdemRuntime runtimeWithClock(Duration skew) {
    return IdemRuntime.builder().dataSource(database.dataSource())
        .clock(Clock.offset(Clock.systemUTC(), skew)).build();
  }

  private static String call(IdemRuntime runtime, CommandSpec<String> spec, String id, CommandBody<String> body) {
    return call(IdemEngine.of(runtime), spec, id, body);
  }

  private static String call(IdemEngine engine, CommandSpec<String> spec, String id, CommandBody<String> body) {
    return engine.execute(spec, new Object[] {id}, new Object[0], body);
  }

  private void assertLiveClaimHolds(Duration ownerSkew, Duration callerSkew, String key) throws Exception {
    assertLiveClaimHolds(IdemEngine.of(runtimeWithClock(ownerSkew)), IdemEngine.of(runtimeWithClock(callerSkew)),
        Clock.offset(Clock.systemUTC(), callerSkew), key);
  }

  /** While {@code owner} runs a CLAIM body, {@code caller} (whose clock is {@code callerClock}) must not take over. */
  private void assertLiveClaimHolds(IdemEngine owner, IdemEngine caller, Clock callerClock, String key)
      throws Exception {
    AtomicInteger bodies = new AtomicInteger();
    assertEquals("owner", call(owner, CHARGE, key, () -> {
      bodies.incrementAndGet();
      Throwable failure = otherCaller.submit(() -> {
        try {
          call(caller, CHARGE, key, () -> "taken over: " + bodies.incrementAndGet());
          return null;
        } catch (RuntimeException e) {
          return e;
        }
      }).get(30, TimeUnit.SECONDS);
      assertTrue(failure instanceof IdempotencyInProgressException, "a live lease: " + failure);
      // Reported by the caller's own clock, so that "retry after leaseEndsAt" works however far it is off.
      long untilLeaseEnd = ((IdempotencyInProgressException) failure).leaseEndsAt().toEpochMilli()
          - callerClock.millis();
      assertTrue(untilLeaseEnd > 25_000 && untilLeaseEnd <= 31_000, "lease ends in " + untilLeaseEnd + " ms");
      return "owner";
    }));
    assertEquals(1, bodies.get());
    assertEquals("owner", call(caller, CHARGE, key, () -> "ran again"));
  }

  /** The host's wall clock: the true time, until it steps. */
  private static final class SteppingClock extends Clock {
    private final AtomicLong stepMillis = new AtomicLong();

    void step(Duration duration) {
      stepMillis.addAndGet(duration.toMillis());
    }

    @Override
    public long millis() {
      return System.currentTimeMillis() + stepMillis.get();
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis());
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      throw new UnsupportedOperationException();
    }
  }

  /**
   * An engine whose time is what the default {@code Clock.systemUTC()} gets (monotonic between measurements, by
   * {@link System#nanoTime()}), over a wall clock the test can step: the OS clock itself is not the test's to step.
   */
  private IdemEngine systemClockEngine(Clock wall) {
    Dialect dialect = Dialect.valueOf(database().name());
    IdemEngine.Settings settings = new IdemEngine.Settings(database.dataSource(), dialect, "idem_record",
        IdemEngine.Limits.DEFAULT_MAX_KEY_LENGTH, IdemEngine.Limits.DEFAULT_KEY_PUNCTUATION, wall, null,
        IdempotencyListener.NO_OP, 0, TransitionListener.NO_OP, false, IdemEngine.Limits.DEFAULT_MAX_RESULT_SIZE,
        null, null, 0, true, false, Duration.ZERO, dev.idem.runtime.RecordLayout.ONE_TABLE, null, null, null,
        dev.idem.runtime.FrontTier.NONE, Duration.ofSeconds(30), null, null, true);
    return new IdemEngine(settings, new DatabaseClock(wall, SqlDialect.of(dialect), true, true, System::nanoTime));
  }

  @Test
  void aCallerWhoseWallClockStepsForwardAfterMeasuringDoesNotTakeOverALiveLease() throws Exception {
    SteppingClock wall = new SteppingClock();
    IdemEngine caller = systemClockEngine(wall);
    assertEquals("measured", call(caller, CHARGE, "s-6-first", () -> "measured")); // the offset is measured
    wall.step(Duration.ofMinutes(10)); // NTP step right after: 10 minutes before the next measurement is due
    assertLiveClaimHolds(IdemEngine.of(runtimeWithClock(Duration.ZERO)), caller, wall, "s-6");
  }

  @Test
  void aCallerTwoMinutesAheadDoesNotTakeOverALiveLease() throws Exception {
    assertLiveClaimHolds(Duration.ZERO, Duration.ofMinutes(2), "s-1");
  }

  @Test
  void anOwnerTwoMinutesBehindKeepsItsLease() throws Exception {
    assertLiveClaimHolds(Duration.ofMinutes(-2), Duration.ZERO, "s-2");
  }

  @Test
  void aPurgerTenMinutesAheadDeletesNothingInsideRetention() {
    IdemRuntime writer = runtimeWithClock(Duration.ZERO);
    assertEquals("kept", call(writer, CHARGE, "s-3", () -> "kept"));
    assertEquals("kept too", call(writer, TRANSFER, "s-4", () -> "kept too"));
    IdemRuntime purgerAhead = runtimeWithClock(Duration.ofMinutes(10));
    assertEquals(0, purgerAhead.purgeExpired(100));
    assertEquals(IdempotencyRecord.State.COMPLETED, writer.inspect("Skew.charge", "s-3").orElseThrow().state());
    // A caller ahead by more than the retention replays too: expiry is the database's.
    assertEquals("kept", call(purgerAhead, CHARGE, "s-3", () -> "ran again"));
    assertEquals("kept too", call(purgerAhead, TRANSFER, "s-4", () -> "ran again"));
  }

  @Test
  void theMeasuredOffsetMatchesTheClocksSkew() throws SQLException {
    DatabaseClock skewed = new DatabaseClock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(7)),
        SqlDialect.of(Dialect.valueOf(database().name())), true);
    try (Connection connection = database.dataSource().getConnection()) {
      long now = skewed.millis(connection);
      assertTrue(Math.abs(now - System.currentTimeMillis()) < 2_000, "database time, off by "
          + (now - System.currentTimeMillis()) + " ms");
      assertTrue(Math.abs(skewed.offsetMillis() + Duration.ofMinutes(7).toMillis()) < 2_000,
          "offset " + skewed.offsetMillis());
    }
    DatabaseClock asIs = new DatabaseClock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(7)),
        SqlDialect.of(Dialect.valueOf(database().name())), false);
    try (Connection connection = database.dataSource().getConnection()) {
      assertTrue(asIs.millis(connection) - System.currentTimeMillis() > Duration.ofMinutes(6).toMillis(),
          "databaseTime(false) takes the clock as is");
    }
  }

  /** A moved test clock still moves time between measurements: tests can still expire leases. */
  @Test
  void aMovedClockStillEndsALeaseWhenFollowingTheDatabase() throws Exception {
    dev.idem.testing.MutableClock clock = new dev.idem.testing.MutableClock();
    IdemRuntime runtime = IdemRuntime.builder().dataSource(database.dataSource()).clock(clock).build();
    assertThrows(IdempotencyLeaseLostException.class, () -> call(runtime, CHARGE, "s-5", () -> {
      clock.advance(Duration.ofSeconds(31)); // this owner stalls past its lease
      assertEquals("taken over",
          otherCaller.submit(() -> call(runtime, CHARGE, "s-5", () -> "taken over")).get(30, TimeUnit.SECONDS));
      return "stale";
    }));
    assertEquals("taken over", call(runtime, CHARGE, "s-5", () -> "ran again"));
  }
}
