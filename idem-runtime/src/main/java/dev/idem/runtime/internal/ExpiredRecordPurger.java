package dev.idem.runtime.internal;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.LongConsumer;
import javax.sql.DataSource;

/**
 * Deletes records whose archive horizon has passed (their dedup window plus the builder's
 * {@link IdemRuntime.Builder#keepAfterDedupWindow keepAfterDedupWindow}), for {@link IdemRuntime#purgeExpired(int)}: in batches, each its own
 * short auto-commit transaction, so that a purge of millions of rows never holds many locks or much undo at once and
 * competes fairly with the commands writing the same table.
 */
final class ExpiredRecordPurger {

  private final DataSource dataSource;
  private final SqlDialect dialect;
  private final String tableName;
  private final DatabaseClock clock;
  private final TransactionManager transactions;
  private final String purgeSql;
  /** How long a record stays after its dedup window ({@code expires_at}) ended; 0: the horizon is the window. */
  private final long keepAfterDedupWindowMillis;
  /** Day partitions: the purge drops whole days instead of deleting rows; null for one table. */
  private final PartitionMaintenance partitions;
  /** The transition log's day partitions, maintained alongside; null for one table. */
  private final PartitionMaintenance logPartitions;
  /** The outbox's day partitions, maintained alongside (its coming days made, its sent days dropped); or null. */
  private final PartitionMaintenance outboxPartitions;

  ExpiredRecordPurger(DataSource dataSource, TransactionManager transactions, SqlDialect dialect, String tableName,
      DatabaseClock clock, long keepAfterDedupWindowMillis, PartitionMaintenance partitions,
      PartitionMaintenance logPartitions, PartitionMaintenance outboxPartitions) {
    this.keepAfterDedupWindowMillis = keepAfterDedupWindowMillis;
    this.partitions = partitions;
    this.logPartitions = logPartitions;
    this.outboxPartitions = outboxPartitions;
    this.transactions = transactions;
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.tableName = tableName;
    this.clock = clock;
    this.purgeSql = partitions == null ? dialect.purgeSql(tableName) : null;
  }

  long purgeExpired(int batchSize) {
    return purgeExpired(batchSize, deleted -> { });
  }

  /**
   * Like {@link #purgeExpired(int)}, telling {@code afterBatch} how many rows each committed batch deleted (for an
   * operator's progress report).
   */
  long purgeExpired(int batchSize, LongConsumer afterBatch) {
    if (transactions.inProgress() || transactions.applicationsInProgress()) {
      // Its batches commit on a connection of their own: inside a transaction, that would be a second pooled
      // connection while this thread holds one (a pool of one would wait for itself), and the batches would not
      // be part of the caller's transaction anyway.
      throw new IllegalStateException("purgeExpired() runs its own short transactions on a connection of its own:"
          + " call it outside runtime.inTransaction(...), the application's transaction and commands' bodies");
    }
    if (partitions != null) {
      // The days past their archive horizon go whole, and the coming days are created: no row is deleted.
      long dropped = partitions.maintain(keepAfterDedupWindowMillis);
      logPartitions.maintain(0); // its days go by the log's own keep (never, by default)
      outboxPartitions.maintain(0); // its days go once all their rows are sent and past the relay's keepSentFor
      afterBatch.accept(dropped); // one "batch": the records of the days removed
      return dropped;
    }
    long total = 0;
    try (Connection connection = dataSource.getConnection()) {
      boolean autoCommit = connection.getAutoCommit();
      if (!autoCommit) {
        connection.setAutoCommit(true);
      }
      // A record whose dedup window ended is no longer replayed nor refused (claims take it over), but stays for
      // audit until its archive horizon: the purge deletes by the same expiry index, only later.
      long now = clock.millis(connection) - keepAfterDedupWindowMillis;
      String selectSql = dialect.purgeSelectSql(tableName, connection.getMetaData());
      try {
        if (selectSql != null) {
          total = purgeBySkipLockedSelect(connection, selectSql, now, batchSize, afterBatch);
        } else {
          try (PreparedStatement purge = connection.prepareStatement(purgeSql)) {
            int deleted;
            do {
              purge.setLong(1, now);
              purge.setInt(2, batchSize);
              deleted = purgeBatch(purge);
              total += deleted;
              afterBatch.accept(deleted);
            } while (deleted >= batchSize);
          }
        }
      } finally {
        // Not over a closed connection (a pool evicts one after a lock timeout): that would hide the purge's error.
        if (!Quietly.closed(connection) && connection.getAutoCommit() != autoCommit) {
          connection.setAutoCommit(autoCommit);
        }
      }
    } catch (SQLException e) {
      throw new IdempotencyStoreException("Purging expired records from " + tableName + " failed after "
          + total + " deletions", e);
    }
    return total;
  }

  /**
   * The batches as {@link SqlDialect#purgeSelectSql} asks: each a transaction at READ COMMITTED that locks up to
   * {@code batchSize} expired rows nobody else holds, deletes them by key and commits. A row in flight is skipped
   * rather than waited for; the batches stop when one picks fewer rows than asked (the next purge gets the rest).
   */
  private long purgeBySkipLockedSelect(Connection connection, String selectSql, long now, int batchSize,
      LongConsumer afterBatch) throws SQLException {
    int isolation = connection.getTransactionIsolation();
    connection.setAutoCommit(false);
    connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
    long total = 0;
    try (PreparedStatement select = connection.prepareStatement(selectSql);
        PreparedStatement delete = connection.prepareStatement(dialect.purgeKeySql(tableName))) {
      int picked;
      do {
        picked = 0;
        for (int attemptNumber = 1; ; attemptNumber++) {
          try {
            picked = 0;
            select.setLong(1, now);
            select.setInt(2, batchSize);
            try (ResultSet rows = select.executeQuery()) {
              while (rows.next()) {
                delete.setString(1, rows.getString(1));
                delete.setString(2, rows.getString(2));
                delete.setLong(3, now);
                delete.addBatch();
                picked++;
              }
            }
            int deleted = 0;
            if (picked > 0) {
              for (int count : delete.executeBatch()) {
                deleted += count == Statement.SUCCESS_NO_INFO ? 1 : Math.max(count, 0);
              }
            }
            connection.commit();
            total += deleted;
            afterBatch.accept(deleted);
            break;
          } catch (SQLException e) {
            if (Quietly.closed(connection) || attemptNumber >= Retries.MAX_ATTEMPTS || !dialect.isTransient(e)) {
              throw e; // over a closed connection (a pool evicts one after a timeout) nothing is left to clean up
            }
            delete.clearBatch();
            Quietly.rollback(connection);
            Retries.pauseBeforeRetry(attemptNumber);
          }
        }
      } while (picked >= batchSize);
    } finally {
      if (!Quietly.closed(connection)) {
        Quietly.rollback(connection); // nothing is open after a commit; after a failure, nothing stays locked
        connection.setTransactionIsolation(isolation);
      }
    }
    return total;
  }

  /** One batch; retried alone if it fails transiently, since the batches before it are committed already. */
  private int purgeBatch(PreparedStatement purge) throws SQLException {
    for (int attemptNumber = 1; ; attemptNumber++) {
      try {
        return purge.executeUpdate();
      } catch (SQLException e) {
        if (attemptNumber >= Retries.MAX_ATTEMPTS || !dialect.isTransient(e)) {
          throw e;
        }
        Retries.pauseBeforeRetry(attemptNumber);
      }
    }
  }
}
