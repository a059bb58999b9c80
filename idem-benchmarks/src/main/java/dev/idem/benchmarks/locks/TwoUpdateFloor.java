package dev.idem.benchmarks.locks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import javax.sql.DataSource;

/**
 * The least a lease lock in a table can send per cycle, written by hand as the lock benchmark's floor: one
 * auto-commit UPDATE that takes the name's row if its lease has ended, one that ends the lease, each on a pooled
 * connection of its own, with the application's clock and no fencing token. These are ShedLock JDBC's statements
 * without ShedLock's code, and fewer guarantees than idem's (no database time, no token): a lock that is level with
 * this floor cannot be ahead of another lock that is, except by the rounds' noise, because every durable lock cycle
 * commits these two writes.
 */
final class TwoUpdateFloor {

  private static final String TAKE = "UPDATE shedlock SET lock_until = ?, locked_at = ?, locked_by = ?"
      + " WHERE name = ? AND lock_until <= ?";
  private static final String FIRST = "INSERT INTO shedlock (name, lock_until, locked_at, locked_by)"
      + " VALUES (?, ?, ?, ?)";
  private static final String END = "UPDATE shedlock SET lock_until = ? WHERE name = ?";

  private final DataSource dataSource;
  private final Duration lockAtMostFor;

  TwoUpdateFloor(DataSource dataSource, Duration lockAtMostFor) {
    this.dataSource = dataSource;
    this.lockAtMostFor = lockAtMostFor;
  }

  /** Takes and ends the lease of {@code name}; false if it was held by someone else. */
  boolean cycle(String name) {
    try {
      if (!take(name)) {
        return false;
      }
      end(name);
      return true;
    } catch (SQLException e) {
      throw new IllegalStateException("The floor's lock cycle on '" + name + "' failed", e);
    }
  }

  private boolean take(String name) throws SQLException {
    Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS); // what TIMESTAMP(3) keeps
    Timestamp nowStamp = Timestamp.from(now);
    Timestamp until = Timestamp.from(now.plus(lockAtMostFor));
    try (Connection connection = dataSource.getConnection()) {
      try (PreparedStatement take = connection.prepareStatement(TAKE)) {
        take.setTimestamp(1, until);
        take.setTimestamp(2, nowStamp);
        take.setString(3, "floor");
        take.setString(4, name);
        take.setTimestamp(5, nowStamp);
        if (take.executeUpdate() == 1) {
          return true;
        }
      }
      try (PreparedStatement first = connection.prepareStatement(FIRST)) { // the name's first cycle only
        first.setString(1, name);
        first.setTimestamp(2, until);
        first.setTimestamp(3, nowStamp);
        first.setString(4, "floor");
        return first.executeUpdate() == 1;
      } catch (SQLException e) {
        return false; // the row exists and its lease has not ended
      }
    }
  }

  private void end(String name) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement end = connection.prepareStatement(END)) {
      end.setTimestamp(1, Timestamp.from(Instant.now().truncatedTo(ChronoUnit.MILLIS)));
      end.setString(2, name);
      end.executeUpdate();
    }
  }
}
