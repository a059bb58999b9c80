package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.Dialect;
import dev.idem.testing.MutableClock;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * {@link DatabaseClock} against a scripted database time, a wall clock moved by hand and a nano time moved by hand:
 * a wall-clock step (NTP step, VM resume) right after a measurement must not move idem's time when it runs on the
 * system clock (monotonic mode), until the next measurement re-anchors on the database.
 */
class DatabaseClockTest {

  private static final SqlDialect H2 = SqlDialect.of(Dialect.H2);
  private static final long DATABASE_START = Instant.parse("2030-01-01T00:00:00Z").toEpochMilli();

  private final AtomicLong databaseMillis = new AtomicLong(DATABASE_START);
  private final AtomicInteger queries = new AtomicInteger();
  private final AtomicLong nanos = new AtomicLong(123_456_789L);
  /** The host's wall clock: 3 s behind the database, steady skew. */
  private final MutableClock wall = new MutableClock(Instant.ofEpochMilli(DATABASE_START - 3_000));

  /** A connection whose one query answers {@link #databaseMillis}. */
  private Connection database() {
    ResultSet rs = (ResultSet) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {ResultSet.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "next" -> true;
          case "getLong" -> databaseMillis.get();
          case "close" -> null;
          default -> throw new UnsupportedOperationException(method.getName());
        });
    PreparedStatement statement = (PreparedStatement) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {PreparedStatement.class}, (proxy, method, args) -> switch (method.getName()) {
          case "executeQuery" -> {
            queries.incrementAndGet();
            yield rs;
          }
          case "close" -> null;
          default -> throw new UnsupportedOperationException(method.getName());
        });
    return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "prepareStatement" -> statement;
          default -> throw new UnsupportedOperationException(method.getName());
        });
  }

  private void elapse(Duration duration) {
    nanos.addAndGet(duration.toNanos());
    databaseMillis.addAndGet(duration.toMillis());
    wall.advance(duration);
  }

  @Test
  void aSteppedWallClockDoesNotMoveMonotonicTimeUntilTheNextMeasurementReanchorsOnTheDatabase() {
    DatabaseClock time = new DatabaseClock(wall, H2, true, true, nanos::get);
    Connection connection = database();
    assertEquals(DATABASE_START, time.millis(connection), "measured: the database's time");
    assertEquals(3_000, time.offsetMillis());

    wall.advance(Duration.ofMinutes(10)); // the host's clock steps forward right after the measurement
    assertEquals(DATABASE_START, time.millis(), "a wall-clock step moves nothing");
    elapse(Duration.ofSeconds(1));
    assertEquals(DATABASE_START + 1_000, time.millis(), "time runs by the monotonic clock");
    assertEquals(DATABASE_START + 1_000, time.millis(connection), "no measurement due yet");
    assertEquals(1, queries.get());
    // A database time (a lease's end) turned into the stepped clock: what the caller's own clock will read then.
    assertEquals(3_000 - Duration.ofMinutes(10).toMillis(), time.offsetMillis());

    elapse(Duration.ofSeconds(29));
    databaseMillis.addAndGet(250); // the database's clock, not the local projection, is what the next one anchors on
    assertEquals(DATABASE_START + 30_250, time.millis(connection), "re-anchored on the database");
    assertEquals(2, queries.get());
    assertEquals(3_000 + 250 - Duration.ofMinutes(10).toMillis(), time.offsetMillis(), "the step is now measured");
    elapse(Duration.ofSeconds(2));
    assertEquals(DATABASE_START + 32_250, time.millis());
  }

  @Test
  void aMonotonicStepBackwardsDoesNotMoveTimeEither() {
    DatabaseClock time = new DatabaseClock(wall, H2, true, true, nanos::get);
    Connection connection = database();
    time.millis(connection);
    wall.advance(Duration.ofMinutes(-10));
    elapse(Duration.ofMillis(500));
    assertEquals(DATABASE_START + 500, time.millis());
  }

  @Test
  void anyOtherClockStillDrivesTheTimeBetweenMeasurements() {
    DatabaseClock time = new DatabaseClock(wall, H2, true, false, nanos::get);
    Connection connection = database();
    assertEquals(DATABASE_START, time.millis(connection));
    wall.advance(Duration.ofMinutes(10));
    assertEquals(DATABASE_START + Duration.ofMinutes(10).toMillis(), time.millis(), "a moved test clock moves time");
  }

  @Test
  void notFollowingTheDatabaseTakesTheClockAsIs() {
    DatabaseClock time = new DatabaseClock(wall, H2, false, true, nanos::get);
    assertFalse(time.monotonic());
    assertEquals(wall.millis(), time.millis(database()));
    assertEquals(0, queries.get());
    wall.advance(Duration.ofMinutes(10));
    assertEquals(wall.millis(), time.millis());
  }

  @Test
  void onlyTheSystemClockIsMonotonic() {
    assertTrue(new DatabaseClock(Clock.systemUTC(), H2, true).monotonic());
    assertTrue(new DatabaseClock(Clock.systemDefaultZone(), H2, true).monotonic());
    assertTrue(new DatabaseClock(Clock.system(ZoneId.of("Europe/Paris")), H2, true).monotonic());
    assertFalse(new DatabaseClock(Clock.systemUTC(), H2, false).monotonic(), "databaseTime(false)");
    assertFalse(new DatabaseClock(new MutableClock(), H2, true).monotonic());
    assertFalse(new DatabaseClock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(2)), H2, true).monotonic());
  }

  @Test
  void theSystemClockFollowsTheDatabaseByTheRealNanoTime() throws InterruptedException {
    DatabaseClock time = new DatabaseClock(Clock.systemUTC(), H2, true);
    databaseMillis.set(DATABASE_START);
    long measured = time.millis(database());
    assertTrue(Math.abs(measured - DATABASE_START) < 1_000, "anchored on the database: " + measured);
    TimeUnit.MILLISECONDS.sleep(50);
    long later = time.millis();
    assertTrue(later - measured >= 50 && later - measured < 5_000, "advanced by " + (later - measured));
  }
}
