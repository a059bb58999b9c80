package dev.idem.runtime.internal;

import dev.idem.runtime.IdemRuntime;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * The time by which leases, takeovers, expiry and purges are decided: the database's clock, as measured from the
 * runtime, so that every runtime on one database agrees however far its own clock is off (a caller minutes ahead
 * must not take over a live lease, a purger ahead must not delete records inside their retention).
 *
 * <p>Between measurements the time advances in one of two ways:
 * <ul>
 *   <li>When the runtime's {@link Clock} is the system clock ({@link Clock#systemUTC()}, the default, or
 *       {@link Clock#systemDefaultZone()}): by {@link System#nanoTime()} (monotonic) from the last measurement's
 *       anchor, the database's time at that measurement. A step of the host's wall clock (an NTP step, a VM resumed)
 *       therefore moves nothing until the next measurement re-anchors on the database, and that measurement reports
 *       the step (see below): a node whose clock stepped minutes forward right after a measurement does not believe
 *       another node's live lease has ended.</li>
 *   <li>Any other clock given to the builder (a test's {@code MutableClock}, {@code Clock.offset(...)}): the clock
 *       plus the last measured offset, so a test clock that is moved forward moves this time forward too, until the
 *       next measurement.</li>
 * </ul>
 * With {@link IdemRuntime.Builder#databaseTime(boolean) databaseTime(false)} the clock is taken as is, whichever it
 * is.
 *
 * <p>The offset is measured with one query ({@link SqlDialect#currentTimeMillisSql()}) on a connection the caller
 * already holds, in auto-commit mode or as the first statement of its transaction (H2 answers with the transaction's
 * start): never an extra pool borrow. It is measured on first use, then again every {@link #REMEASURE_NANOS}, by at
 * most one caller at a time. A measurement whose round trip took longer than {@link #MAX_ROUND_TRIP_MILLIS} is
 * discarded (its error would be as large); a new offset more than {@link #JUMP_WARNING_MILLIS} away from the last is
 * taken, with a warning (a clock step, or an unstable clock). {@link #offsetMillis()} is always the current
 * difference between this time and the runtime's clock, so that a database time turned into the runtime's clock
 * (a lease's end reported to a caller) stays right after a step too.
 */
final class DatabaseClock {

  private static final System.Logger LOG = System.getLogger(IdemRuntime.class.getName());

  static final long REMEASURE_NANOS = TimeUnit.SECONDS.toNanos(30);
  static final long MAX_ROUND_TRIP_MILLIS = 1_000;
  static final long JUMP_WARNING_MILLIS = 5_000;

  /** The class of {@link Clock#systemUTC()} and {@link Clock#systemDefaultZone()} ({@code Clock$SystemClock}). */
  private static final Class<?> SYSTEM_CLOCK = Clock.systemUTC().getClass();

  private final Clock clock;
  /** Null: the runtime's clock is taken as is (see {@link IdemRuntime.Builder#databaseTime(boolean)}). */
  private final String currentTimeSql;
  /** Whether the time between measurements is measured by {@link #nanoTime} from {@link #anchor}. */
  private final boolean monotonic;
  private final LongSupplier nanoTime;
  /** The last measured offset: database minus the runtime's clock, at the measurement. */
  private volatile long offsetMillis;
  /** Monotonic mode: the database's time at the last measurement, and the nano time it was taken at. */
  private volatile Anchor anchor;
  private volatile boolean measured;
  private volatile long measuredAtNanos;
  private final AtomicBoolean measuring = new AtomicBoolean();

  private record Anchor(long databaseMillis, long nanos) {}

  DatabaseClock(Clock clock, SqlDialect dialect, boolean followDatabase) {
    this(clock, dialect, followDatabase, isSystemClock(clock), System::nanoTime);
  }

  /**
   * @param monotonic whether the time between measurements is measured by {@code nanoTime} rather than by the clock;
   *     ignored unless {@code followDatabase}
   * @param nanoTime the monotonic time source ({@link System#nanoTime()} but in tests)
   */
  DatabaseClock(Clock clock, SqlDialect dialect, boolean followDatabase, boolean monotonic, LongSupplier nanoTime) {
    this.clock = clock;
    this.currentTimeSql = followDatabase ? dialect.currentTimeMillisSql() : null;
    this.monotonic = followDatabase && monotonic;
    this.nanoTime = nanoTime;
    this.measured = !followDatabase;
  }

  /** Whether {@code clock} is the system clock, whose wall time may step; see the class comment. */
  static boolean isSystemClock(Clock clock) {
    return clock.getClass() == SYSTEM_CLOCK;
  }

  /** Whether the time between measurements is monotonic (see the class comment). */
  boolean monotonic() {
    return monotonic;
  }

  /** The current time in epoch millis, by the last measurement; no database access. */
  long millis() {
    Anchor last = anchor;
    if (last != null) {
      return last.databaseMillis() + TimeUnit.NANOSECONDS.toMillis(nanoTime.getAsLong() - last.nanos());
    }
    return clock.millis() + offsetMillis;
  }

  /**
   * The current time in epoch millis; measures the offset first on {@code connection} when it is due. Never throws
   * for the measurement: a failed one keeps the last offset (the caller's own statement will meet the same fault).
   */
  long millis(Connection connection) {
    if (currentTimeSql != null && due()) {
      if (measuring.compareAndSet(false, true)) {
        try {
          measure(connection);
        } finally {
          measuring.set(false);
        }
      } else if (!measured) {
        measure(connection); // never measured: nobody may use the raw clock, so this caller measures too
      }
    }
    return millis();
  }

  /**
   * This time minus the runtime's clock, now: turns a database time into the runtime's clock. The last measured
   * offset, but in monotonic mode, where the runtime's clock may have stepped since the measurement.
   */
  long offsetMillis() {
    return anchor != null ? millis() - clock.millis() : offsetMillis;
  }

  private boolean due() {
    return !measured || nanoTime.getAsLong() - measuredAtNanos >= REMEASURE_NANOS;
  }

  private void measure(Connection connection) {
    try (PreparedStatement query = connection.prepareStatement(currentTimeSql)) {
      long before = clock.millis();
      long startNanos = nanoTime.getAsLong();
      long databaseMillis;
      try (ResultSet rs = query.executeQuery()) {
        rs.next();
        databaseMillis = rs.getLong(1);
      }
      long endNanos = nanoTime.getAsLong();
      long roundTripMillis = TimeUnit.NANOSECONDS.toMillis(endNanos - startNanos);
      long after = clock.millis();
      if (roundTripMillis > MAX_ROUND_TRIP_MILLIS && measured) {
        LOG.log(Level.DEBUG, "Clock offset measurement discarded: its round trip took " + roundTripMillis + " ms");
        return;
      }
      long offset = databaseMillis - (before + (after - before) / 2);
      if (measured && Math.abs(offset - offsetMillis) > JUMP_WARNING_MILLIS) {
        LOG.log(Level.WARNING, "The runtime's clock moved by " + (offsetMillis - offset) + " ms against the"
            + " database's since the last measurement; idem follows the database's clock");
      }
      offsetMillis = offset;
      if (monotonic) {
        anchor = new Anchor(databaseMillis, startNanos + (endNanos - startNanos) / 2);
      }
      measuredAtNanos = endNanos;
      measured = true;
    } catch (SQLException e) {
      LOG.log(Level.DEBUG, "Clock offset measurement failed; keeping the last offset", e);
    }
  }
}
