package dev.idem.runtime.internal;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.internal.RecordStatements.Stored;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The read a {@code lookupFirst} command makes before its claim: the key's record, by its primary key, in auto-commit
 * mode on a connection of its own. It only ever shortens the way to an answer the claim would give too: a
 * {@code COMPLETED}, unexpired record is that answer (a completed record never changes before it expires); anything
 * else (no record, one in progress, expired, parked, a read that failed) sends the call on to the claim, where the
 * unique key decides as always. So a retry of a completed key costs one read and no transaction, and a first
 * execution the read on top of its claim.
 */
final class RecordLookup {

  private static final System.Logger LOG = System.getLogger(IdemRuntime.class.getName());

  private final TransactionManager transactions;
  private final RecordStatements records;
  private final DatabaseClock clock;

  RecordLookup(TransactionManager transactions, RecordStatements records, DatabaseClock clock) {
    this.transactions = transactions;
    this.records = records;
    this.clock = clock;
  }

  /**
   * Whether a call on this thread may read first: only outside any transaction, where the read sees what is
   * committed and a replay needs no transaction of its own. (Inside one, the claim is a statement of that
   * transaction anyway, and a read first would take a snapshot for the application on MariaDB.)
   */
  boolean applies() {
    return !transactions.inProgress() && !transactions.applicationsInProgress();
  }

  /**
   * The key's completed record if it is committed and unexpired by the database's clock, else null: the claim
   * decides.
   *
   * @throws dev.idem.runtime.IdempotencyStoreException if the pool lends no connection (the claim could not run
   *     either)
   */
  CompletedRecord completed(String scope, String key) {
    Connection connection = transactions.newConnection();
    try {
      Stored stored;
      if (connection.getAutoCommit()) {
        stored = records.lookup(connection, scope, key);
      } else {
        // A pool that lends connections in manual-commit mode: the read's transaction ends here.
        try {
          stored = records.lookup(connection, scope, key);
        } finally {
          connection.rollback();
        }
      }
      if (stored == null || !SqlDialect.COMPLETED.equals(stored.state())
          || stored.expiresAt() <= clock.millis(connection)) {
        return null;
      }
      return stored.completed();
    } catch (SQLException e) {
      // The claim meets the same fault, if it lasts, and reports it with what to do (a missing table, say).
      LOG.log(Level.DEBUG, "Reading " + scope + " key '" + key + "' before its claim failed; the claim decides", e);
      return null;
    } finally {
      Quietly.close(connection);
    }
  }
}
