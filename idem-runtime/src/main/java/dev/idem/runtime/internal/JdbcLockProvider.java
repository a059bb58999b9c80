package dev.idem.runtime.internal;

import dev.idem.runtime.IdempotencyStoreException;
import dev.idem.runtime.LockLease;
import dev.idem.runtime.LockProvider;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The runtime's own {@link LockProvider}: the {@code idem_lock} table on the runtime's database. Each call borrows a
 * pooled connection for one statement in auto-commit mode (the acquisition on H2 reads its row back in a second;
 * elsewhere an acquisition that finds no row to take over tries the INSERT of a name's first lease) and gives it
 * back, so a watchdog holds no connection between renewals. Every time is the database's, taken by the
 * statement ({@link SqlDialect#lockNowMillis()}); the fencing token increases in the statement that takes the lease.
 */
final class JdbcLockProvider implements LockProvider {

  /** A renewal that has not answered by then is as good as failed: the watchdog decides by its deadline. */
  private static final int QUERY_TIMEOUT_SECONDS = 10;

  private final DataSource dataSource;
  private final SqlDialect dialect;
  private final String acquireSql;
  private final String readBackSql;
  private final String insertSql;
  private final String renewSql;
  private final String releaseSql;
  private final String releaseNowSql;
  private final String lockedBy;

  JdbcLockProvider(DataSource dataSource, SqlDialect dialect) {
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.acquireSql = dialect.lockAcquireSql();
    this.readBackSql = dialect.lockReadBackSql();
    this.insertSql = dialect.lockInsertSql();
    this.renewSql = dialect.lockRenewSql();
    this.releaseSql = dialect.lockReleaseSql();
    this.releaseNowSql = dialect.lockReleaseNowSql();
    this.lockedBy = whoAmI();
  }

  @Override
  public Optional<LockLease> tryAcquire(String name, Duration lockAtMostFor) {
    String owner = UUID.randomUUID().toString();
    try (Connection connection = autoCommit(dataSource.getConnection())) {
      if (dialect.lockAcquireTakesOverOnly()) {
        return takeOverOrInsert(connection, name, owner, lockAtMostFor);
      }
      try (PreparedStatement acquire = connection.prepareStatement(acquireSql)) {
        acquire.setString(1, name);
        acquire.setString(2, owner);
        acquire.setLong(3, lockAtMostFor.toMillis());
        acquire.setString(4, lockedBy);
        try {
          acquire.executeUpdate();
        } catch (SQLException e) {
          if (dialect.isDuplicateKey(e)) {
            return Optional.empty(); // H2's MERGE: a competitor inserted the first row of this name first
          }
          throw e;
        }
      }
      return readBack(connection, name, owner);
    } catch (SQLException e) {
      throw failure("Taking the single-flight lock '" + name + "' failed", e);
    }
  }

  /**
   * PostgreSQL, MariaDB and MySQL: the takeover UPDATE; only where it took nothing (the name has no row yet, or its
   * lease has not ended), the INSERT of the name's first lease, which finds the row of a held lock and gives up.
   */
  private Optional<LockLease> takeOverOrInsert(Connection connection, String name, String owner,
      Duration lockAtMostFor) throws SQLException {
    boolean insertId = dialect.lockAcquireReportsFenceAsInsertId();
    try (PreparedStatement takeOver = insertId
        ? connection.prepareStatement(acquireSql, Statement.RETURN_GENERATED_KEYS)
        : connection.prepareStatement(acquireSql)) {
      takeOver.setString(1, owner);
      takeOver.setLong(2, lockAtMostFor.toMillis());
      takeOver.setString(3, lockedBy);
      takeOver.setString(4, name);
      if (dialect.lockAcquireReturnsRow()) {
        try (ResultSet won = takeOver.executeQuery()) {
          if (won.next()) {
            return Optional.of(new LockLease(name, owner, won.getLong(1)));
          }
        }
      } else if (takeOver.executeUpdate() == 1) {
        if (insertId) {
          // The token the statement set with LAST_INSERT_ID(fence + 1), from its own reply: no second round trip.
          try (ResultSet keys = takeOver.getGeneratedKeys()) {
            if (keys.next() && keys.getLong(1) > 0) {
              return Optional.of(new LockLease(name, owner, keys.getLong(1)));
            }
          }
        }
        return readBack(connection, name, owner); // a driver that does not report the insert id
      }
    }
    try (PreparedStatement insert = connection.prepareStatement(insertSql)) {
      insert.setString(1, name);
      insert.setString(2, owner);
      insert.setLong(3, lockAtMostFor.toMillis());
      insert.setString(4, lockedBy);
      return insert.executeUpdate() == 1 ? Optional.of(new LockLease(name, owner, 1)) : Optional.empty();
    } catch (SQLException e) {
      if (dialect.isDuplicateKey(e)) {
        return Optional.empty(); // the row exists and its lease has not ended, or a competitor created it first
      }
      throw e;
    }
  }

  /** The owner token is this attempt's alone: the row holds it exactly when the attempt won. */
  private Optional<LockLease> readBack(Connection connection, String name, String owner) throws SQLException {
    try (PreparedStatement readBack = connection.prepareStatement(readBackSql)) {
      readBack.setString(1, name);
      readBack.setString(2, owner);
      try (ResultSet won = readBack.executeQuery()) {
        return won.next() ? Optional.of(new LockLease(name, owner, won.getLong(1))) : Optional.empty();
      }
    }
  }

  @Override
  public boolean renew(LockLease lease, Duration lockAtMostFor) {
    return fenced(renewSql, lease, lockAtMostFor, "Renewing");
  }

  @Override
  public boolean release(LockLease lease, Duration lockAtLeastFor) {
    if (lockAtLeastFor.isZero() || lockAtLeastFor.isNegative()) {
      return fenced(releaseNowSql, lease, null, "Releasing");
    }
    return fenced(releaseSql, lease, lockAtLeastFor, "Releasing");
  }

  /**
   * One fenced UPDATE. Only a renewal gets a query timeout: the watchdog must learn by its deadline that a renewal
   * failed, whereas an acquisition and a release run on the caller's thread, as any other statement of theirs
   * (on MariaDB a query timeout is a {@code SET STATEMENT max_statement_time … FOR} prefix the server pays for).
   */
  private boolean fenced(String sql, LockLease lease, Duration millis, String what) {
    try (Connection connection = autoCommit(dataSource.getConnection());
        PreparedStatement update = connection.prepareStatement(sql)) {
      int parameter = 1;
      if (millis != null) {
        update.setLong(parameter++, millis.toMillis());
      }
      if (sql == renewSql) {
        update.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
      }
      update.setString(parameter++, lease.name());
      update.setString(parameter, lease.ownerToken());
      return update.executeUpdate() > 0;
    } catch (SQLException e) {
      throw failure(what + " the single-flight lock '" + lease.name() + "' failed", e);
    }
  }

  /** Each statement commits by itself: a pool may lend connections with auto-commit off. */
  private static Connection autoCommit(Connection connection) throws SQLException {
    if (!connection.getAutoCommit()) {
      connection.setAutoCommit(true);
    }
    return connection;
  }

  private IdempotencyStoreException failure(String message, SQLException e) {
    return new IdempotencyStoreException(message + dialect.missingTableHint(e, SqlDialect.LOCK_TABLE), e);
  }

  /** Host and process, for operators reading the table: who took a lock last. */
  private static String whoAmI() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      host = "unknown-host";
    }
    String who = ProcessHandle.current().pid() + "@" + host;
    return who.length() > 255 ? who.substring(0, 255) : who;
  }
}
