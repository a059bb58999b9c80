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

/**
 * The time by which leases, takeovers, expiry and purges are decided: the runtime's {@link Clock} plus the offset
 * measured between it and the database's clock, so that every runtime on one database agrees however far its own
 * clock is off (a caller minutes ahead must not take over a live lease, a purger ahead must not delete records
 * inside their retention). The clock still drives the time between measurements, so a test clock that is moved
 * forward moves this time forward too, until the next measurement.
 *
 * <p>The offset is measured with one query ({@link SqlDialect#currentTimeMillisSql()}) on a connection the caller
 * already holds, in auto-commit mode or as the first statement of its transaction (H2 answers with the transaction's
 * start): never an extra pool borrow. It is measured on first use, then again every {@link #REMEASURE_NANOS}, by at
 * most one caller at a time. A measurement whose round trip took longer than {@link #MAX_ROUND_TRIP_MILLIS} is
 * discarded (its error would be as large); a new offset more than {@link #JUMP_WARNING_MILLIS} away from the last is
 * taken, with a warning (a clock step, or an unstable clock).
 */
final class DatabaseClock {

  private static final System.Logger LOG = System.getLogger(IdemRuntime.class.getName());

  static final long REMEASURE_NANOS = TimeUnit.SECONDS.toNanos(30);
  static final long MAX_ROUND_TRIP_MILLIS = 1_000;
  static final long JUMP_WARNING_MILLIS = 5_000;

  private final Clock clock;
  /** Null: the runtime's clock is taken as is (see {@link IdemRuntime.Builder#databaseTime(boolean)}). */
  private final String currentTimeSql;
  private volatile long offsetMillis;
  private volatile boolean measured;
  private volatile long measuredAtNanos;
  private final AtomicBoolean measuring = new AtomicBoolean();

  DatabaseClock(Clock clock, SqlDialect dialect, boolean followDatabase) {
    this.clock = clock;
    this.currentTimeSql = followDatabase ? dialect.currentTimeMillisSql() : null;
    this.measured = !followDatabase;
  }

  /** The current time in epoch millis, by the last measured offset; no database access. */
  long millis() {
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

  /** The last measured offset (database minus runtime clock): turns a database time into the runtime's clock. */
  long offsetMillis() {
    return offsetMillis;
  }

  private boolean due() {
    return !measured || System.nanoTime() - measuredAtNanos >= REMEASURE_NANOS;
  }

  private void measure(Connection connection) {
    try (PreparedStatement query = connection.prepareStatement(currentTimeSql)) {
      long before = clock.millis();
      long startNanos = System.nanoTime();
      long databaseMillis;
      try (ResultSet rs = query.executeQuery()) {
        rs.next();
        databaseMillis = rs.getLong(1);
      }
      long roundTripMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
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
      measuredAtNanos = System.nanoTime();
      measured = true;
    } catch (SQLException e) {
      LOG.log(Level.DEBUG, "Clock offset measurement failed; keeping the last offset", e);
    }
  }
}
