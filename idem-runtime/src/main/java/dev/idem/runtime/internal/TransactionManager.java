package dev.idem.runtime.internal;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyCommitUnknownException;
import dev.idem.runtime.IdempotencyStoreException;
import dev.idem.runtime.TransactionalWork;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The transaction a runtime has in progress on each thread, shared by every executor and by
 * {@link Transitions}: commands, batches and {@link IdemRuntime#inTransaction} work on one thread join the same
 * transaction, and {@link IdemRuntime#currentConnection()} finds it. One per runtime, so that two runtimes on the
 * same thread never see each other's transactions.
 */
final class TransactionManager {

  private static final System.Logger LOG = System.getLogger(IdemRuntime.class.getName());

  private final DataSource dataSource;
  private final ThreadLocal<Transaction> current = new ThreadLocal<>();

  TransactionManager(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** The transaction in progress on this thread, or null. */
  Transaction current() {
    return current.get();
  }

  boolean inProgress() {
    return current.get() != null;
  }

  /** The connection of this thread's transaction, for idem's own statements. */
  Connection currentConnection() {
    return require("currentConnection()").connection;
  }

  /** The same, guarded for application code (see {@link GuardedConnection}). */
  Connection userConnection() {
    return require("currentConnection()").guardedConnection();
  }

  void afterCommit(Runnable action) {
    require("afterCommit()").afterCommit(action);
  }

  private Transaction require(String what) {
    Transaction tx = current.get();
    if (tx == null) {
      throw new IllegalStateException("No transaction of this IdemRuntime is in progress on this thread: "
          + "call " + what + " inside an idempotent method's body or inside runtime.inTransaction(...)");
    }
    return tx;
  }

  /** See {@link IdemRuntime#inTransaction}. */
  <T> T inTransaction(TransactionalWork<T> work) {
    Transaction joined = current.get();
    if (joined != null) {
      try {
        return work.run(joined.guardedConnection());
      } catch (Throwable t) {
        throw Sneaky.rethrow(t);
      }
    }
    Transaction tx = begin();
    T result;
    try {
      try {
        result = work.run(tx.guardedConnection());
      } catch (Throwable t) {
        Quietly.rollback(tx.connection);
        throw Sneaky.rethrow(t);
      }
      try {
        tx.connection.commit();
      } catch (SQLException e) {
        Quietly.rollback(tx.connection);
        // commit() itself failed: the database may have committed or not; never claim it rolled back.
        throw new IdempotencyCommitUnknownException(null, null, e);
      }
    } finally {
      end(tx);
    }
    tx.runAfterCommit();
    return result;
  }

  /**
   * Begins a transaction on a new connection and makes it this thread's. The caller commits or rolls back, then
   * calls {@link #end}, then runs the after-commit actions if it committed.
   */
  Transaction begin() {
    Connection connection = newConnection();
    try {
      boolean autoCommit = connection.getAutoCommit();
      if (autoCommit) {
        connection.setAutoCommit(false);
      }
      Transaction tx = new Transaction(connection, autoCommit);
      current.set(tx);
      return tx;
    } catch (SQLException e) {
      Quietly.close(connection);
      throw new IdempotencyStoreException("Cannot begin a transaction", e);
    }
  }

  /**
   * A connection of its own, which the caller closes: for a transaction, or for a {@code CLAIM} command's claim,
   * which must commit before its body runs.
   */
  Connection newConnection() {
    try {
      return dataSource.getConnection();
    } catch (SQLException e) {
      throw new IdempotencyStoreException("Cannot obtain a connection", e);
    }
  }

  /** Ends a transaction of {@link #begin}, committed or rolled back: restores auto-commit and closes it. */
  void end(Transaction tx) {
    current.remove();
    try {
      if (tx.restoreAutoCommit) {
        tx.connection.setAutoCommit(true);
      }
    } catch (SQLException e) {
      LOG.log(Level.WARNING, "Cannot restore auto-commit", e);
    } finally {
      Quietly.close(tx.connection);
    }
  }

  /**
   * Makes a transaction on a connection the caller manages this thread's, until {@link #unbind}: a {@code CLAIM}
   * body's, which runs on the connection that committed its claim and is completed by the caller.
   */
  Transaction bind(Connection connection) {
    Transaction tx = new Transaction(connection, false);
    current.set(tx);
    return tx;
  }

  void unbind() {
    current.remove();
  }
}
