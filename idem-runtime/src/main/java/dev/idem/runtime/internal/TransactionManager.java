package dev.idem.runtime.internal;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyCommitUnknownException;
import dev.idem.runtime.IdempotencyStoreException;
import dev.idem.runtime.TransactionBinding;
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
  /** Where the application's own transaction is found; null if the runtime never joins one. */
  private final TransactionBinding binding;
  private final ThreadLocal<Transaction> current = new ThreadLocal<>();

  private final SqlDialect dialect;

  /** See {@link SqlDialect#opensTransactionsWithStatement()}. */
  private final boolean transactionsByStatement;

  TransactionManager(DataSource dataSource, TransactionBinding binding) {
    this(dataSource, binding, null);
  }

  /**
   * @param dialect classifies the failures of {@link #inTransaction} work (transient or not, a missing table);
   *     null: none is transient
   */
  TransactionManager(DataSource dataSource, TransactionBinding binding, SqlDialect dialect) {
    this.dataSource = dataSource;
    this.binding = binding;
    this.dialect = dialect;
    this.transactionsByStatement = dialect != null && dialect.opensTransactionsWithStatement();
  }

  /** The transaction bound to this thread (idem's own, or the application's while idem runs inside it), or null. */
  Transaction current() {
    return current.get();
  }

  boolean inProgress() {
    return current.get() != null;
  }

  /**
   * When no transaction is bound to this thread and the binding finds the application's: binds that one to this
   * thread, until {@link #unbind()}, which the caller must call. Otherwise null: idem begins its own.
   */
  Transaction bindApplications() {
    Connection connection = binding == null ? null : binding.currentConnection();
    if (connection == null) {
      return null;
    }
    Transaction tx = Transaction.applications(connection, binding);
    current.set(tx);
    return tx;
  }

  /** Whether the application has a transaction on this thread that idem would join (for CLAIM's refusal). */
  boolean applicationsInProgress() {
    return binding != null && binding.currentConnection() != null;
  }

  /** The connection of this thread's transaction, for idem's own statements. */
  Connection currentConnection() {
    return require("currentConnection()").connection;
  }

  /** The same, guarded for application code (see {@link GuardedConnection}); the application's one if it has one. */
  Connection userConnection() {
    Transaction tx = current.get();
    if (tx == null) {
      Connection applications = binding == null ? null : binding.currentConnection();
      if (applications != null) {
        return new GuardedConnection(applications);
      }
    }
    return require("currentConnection()").guardedConnection();
  }

  /** For the application's action: after the transaction on this thread commits, never early. */
  void afterCommit(Runnable action) {
    Transaction tx = current.get();
    if (tx == null) {
      Connection applications = binding == null ? null : binding.currentConnection();
      if (applications != null) {
        Transaction.applications(applications, binding).afterCommit(action);
        return;
      }
    }
    require("afterCommit()").afterCommit(action);
  }

  /** For idem's listener: after the transaction on this thread commits, or now if that cannot be known. */
  void afterCommitOrNow(Runnable action) {
    require("afterCommit()").afterCommitOrNow(action);
  }

  private Transaction require(String what) {
    Transaction tx = current.get();
    if (tx == null) {
      throw new IllegalStateException("No transaction of this IdemRuntime is in progress on this thread: "
          + "call " + what + " inside an idempotent method's body, inside runtime.inTransaction(...)"
          + (binding == null ? "" : ", inside the application's transaction that the TransactionBinding finds")
          + " or inside runtime.withConnection(...)");
    }
    return tx;
  }

  /**
   * See {@link IdemRuntime#inTransaction}; also what generated {@code @StateTransition} methods run their SQL in.
   * Whatever the work throws comes out unchanged, except a raw {@link SQLException} (the work's or a transition's own
   * statements failed): that becomes an {@link IdempotencyStoreException} with it as the cause, since every failure
   * idem lets out is an {@code IdempotencyException} or the application's own exception. In a transaction of idem's
   * own, a transient one ({@link SqlDialect#isTransient} or {@link SqlDialect#isLockNotAvailable}: a deadlock, a lock
   * timeout), raw or as the cause of an {@code IdempotencyStoreException} from a command joined inside, reruns the
   * whole work in a new transaction, up to {@link Retries#MAX_ATTEMPTS} attempts, as {@code TRANSACTIONAL} commands
   * retry: the failed attempt rolled back entirely, so rerunning it is safe for work whose effects are all in that
   * transaction. Joined to a transaction in progress (a command's body, the application's), nothing is retried: the
   * database may have aborted that whole transaction, which only its owner can begin again.
   */
  <T> T inTransaction(TransactionalWork<T> work) {
    Transaction joined = current.get();
    if (joined != null) {
      return runJoinedWrapping(joined, work);
    }
    Transaction applications = bindApplications();
    if (applications != null) {
      try {
        return runJoinedWrapping(applications, work);
      } finally {
        unbind();
      }
    }
    for (int attemptNumber = 1; ; attemptNumber++) {
      try {
        return inOwnTransaction(work);
      } catch (SQLException e) {
        if (attemptNumber < Retries.MAX_ATTEMPTS && isTransient(e)) {
          Retries.pauseBeforeRetry(attemptNumber);
          continue;
        }
        throw new IdempotencyStoreException(workFailed(e, isTransient(e)
            ? "; it failed transiently (deadlock, lock timeout) in each of " + Retries.MAX_ATTEMPTS + " attempts, each"
                + " in a new transaction, all rolled back"
            : "; its transaction was rolled back"), e);
      } catch (IdempotencyCommitUnknownException e) {
        throw e; // whether it committed is unknown: never rerun
      } catch (IdempotencyStoreException e) {
        if (attemptNumber < Retries.MAX_ATTEMPTS && isTransient(e.getCause())) {
          Retries.pauseBeforeRetry(attemptNumber); // a command joined inside failed transiently
          continue;
        }
        throw e;
      }
    }
  }

  /** Whether rerunning the whole transaction may succeed; by SQLState and vendor code, never by message. */
  private boolean isTransient(SQLException e) {
    return dialect != null && e != null && (dialect.isTransient(e) || dialect.isLockNotAvailable(e));
  }

  /** The message of a failure of work's SQL, with what to do if a table of idem's is missing. */
  private String workFailed(SQLException e, String outcome) {
    return "An SQL statement failed in a @StateTransition or in runtime.inTransaction(..) work" + outcome
        + (dialect == null ? "" : dialect.missingTableHint(e, null));
  }

  /** One attempt in a new transaction of idem's own; a raw SQLException of the work comes out as such. */
  private <T> T inOwnTransaction(TransactionalWork<T> work) throws SQLException {
    try {
      return inTransactionRethrowing(work);
    } catch (Throwable t) {
      if (t instanceof SQLException e) {
        throw e;
      }
      throw Sneaky.rethrow(t);
    }
  }

  private <T> T runJoinedWrapping(Transaction joined, TransactionalWork<T> work) {
    try {
      return runJoined(joined, work);
    } catch (Throwable t) {
      if (t instanceof SQLException e) {
        throw new IdempotencyStoreException(workFailed(e, " inside the caller's transaction (not retried there:"
            + " the database may have aborted that whole transaction)"), e);
      }
      throw Sneaky.rethrow(t);
    }
  }

  /**
   * Runs {@code work} in a transaction (joined, or idem's own, committed here), rethrowing whatever it throws
   * unchanged, a raw {@link SQLException} too: for executors that classify and retry failures themselves
   * ({@link BatchExecutor}).
   */
  <T> T inTransactionRethrowing(TransactionalWork<T> work) {
    Transaction joined = current.get();
    if (joined != null) {
      return runJoined(joined, work);
    }
    Transaction applications = bindApplications();
    if (applications != null) {
      try {
        return runJoined(applications, work);
      } finally {
        unbind();
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

  private static <T> T runJoined(Transaction joined, TransactionalWork<T> work) {
    try {
      joined.flush(); // the application's pending writes (JPA): idem's statements in work must see them
      return work.run(joined.guardedConnection());
    } catch (Throwable t) {
      throw Sneaky.rethrow(t);
    }
  }

  /** See {@link IdemRuntime#withConnection}: the application's plain JDBC transaction, bound while work runs. */
  <T> T withConnection(Connection connection, TransactionalWork<T> work) {
    if (current.get() != null) {
      throw new IllegalStateException("withConnection(..) cannot be called while a transaction of this IdemRuntime"
          + " is in progress on this thread (inside a command's body, inTransaction(..) or withConnection(..)):"
          + " the work there already runs in that transaction; use currentConnection()");
    }
    try {
      if (connection.getAutoCommit()) {
        throw new IllegalStateException("withConnection(..) needs a connection in a transaction: call"
            + " connection.setAutoCommit(false) first, and commit or roll back after withConnection returns");
      }
    } catch (SQLException e) {
      throw new IdempotencyStoreException("Cannot read the auto-commit mode of the connection given to"
          + " withConnection(..)", e);
    }
    current.set(Transaction.applications(connection, () -> connection));
    try {
      return runJoinedWrapping(current.get(), work);
    } finally {
      unbind();
    }
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
    Connection connection;
    try {
      connection = dataSource.getConnection();
    } catch (SQLException e) {
      throw new IdempotencyStoreException("Cannot obtain a connection", e);
    }
    return transactionsByStatement ? byStatement(connection) : connection;
  }

  /** Where the pool lends connections in auto-commit mode, idem's transactions on them begin by statement. */
  private static Connection byStatement(Connection connection) {
    try {
      return connection.getAutoCommit() ? new StatementTransactionConnection(connection) : connection;
    } catch (SQLException e) {
      Quietly.close(connection);
      throw new IdempotencyStoreException("Cannot read the auto-commit mode of a new connection", e);
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
      LOG.log(Quietly.closed(tx.connection) ? Level.DEBUG : Level.WARNING, "Cannot restore auto-commit", e);
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
