package dev.idem.runtime.internal;

import dev.idem.runtime.TransactionBinding;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;

/**
 * The transaction a runtime has in progress on one thread: idem's own, which idem commits, or the application's,
 * found through a {@link TransactionBinding}, which idem only joins (savepoints, never commit, rollback or close).
 */
final class Transaction {

  final Connection connection;
  final boolean restoreAutoCommit;
  /** The application's binding when this is the application's transaction; null when it is idem's own. */
  private final TransactionBinding application;
  private List<Runnable> afterCommit;
  /** What the application gets to see of {@link #connection}; made on first use. */
  private GuardedConnection guarded;

  Transaction(Connection connection, boolean restoreAutoCommit) {
    this(connection, restoreAutoCommit, null);
  }

  private Transaction(Connection connection, boolean restoreAutoCommit, TransactionBinding application) {
    this.connection = connection;
    this.restoreAutoCommit = restoreAutoCommit;
    this.application = application;
  }

  /** The application's transaction on {@code connection}, which idem joins but never ends. */
  static Transaction applications(Connection connection, TransactionBinding binding) {
    return new Transaction(connection, false, binding);
  }

  /** Whether this is the application's transaction (joined), not idem's own. */
  boolean isApplications() {
    return application != null;
  }

  /** The connection as handed to application code, which must not end the transaction. */
  Connection guardedConnection() {
    if (guarded == null) {
      guarded = new GuardedConnection(connection);
    }
    return guarded;
  }

  /** After a body returned, before its record completes: the application's pending writes go to the connection. */
  void flush() {
    if (application != null) {
      application.flush();
    }
  }

  /** After a {@code replayOn} failure: idem rolled back the body's writes and records the failure as the outcome. */
  void failureRecorded(Throwable failure) {
    if (application != null) {
      application.failureRecorded(failure);
    }
  }

  /** After a transition's guarded update changed an entity's row behind the application's back. */
  void entityChanged(String entityName, Object id) {
    if (application != null) {
      application.entityChanged(entityName, id);
    }
  }

  /** After a body failed and idem rolled back to its savepoint. */
  void bodyFailed(Throwable failure) {
    if (application != null) {
      application.bodyFailed(failure);
    }
  }

  /**
   * Registers {@code action} to run after this transaction commits.
   *
   * @return false if it cannot be: the application's transaction, whose binding has no after-commit hook
   */
  boolean tryAfterCommit(Runnable action) {
    if (application != null) {
      return application.afterCommit(action);
    }
    if (afterCommit == null) {
      afterCommit = new ArrayList<>(2);
    }
    afterCommit.add(action);
    return true;
  }

  /** Runs {@code action} after this transaction commits, or now if that cannot be known (for idem's listener). */
  void afterCommitOrNow(Runnable action) {
    if (!tryAfterCommit(action)) {
      action.run();
    }
  }

  /** Registers the application's action, which must not run early. */
  void afterCommit(Runnable action) {
    if (!tryAfterCommit(action)) {
      throw new IllegalStateException("afterCommit() cannot be used inside the application's transaction joined"
          + " through withConnection(..) or a TransactionBinding without an after-commit hook: idem cannot see when"
          + " that transaction commits. Register the action with the application's transaction manager instead");
    }
  }

  /** Runs the after-commit actions in registration order; the first failure is thrown after all ran. */
  void runAfterCommit() {
    if (afterCommit == null) {
      return;
    }
    RuntimeException failure = null;
    for (Runnable action : afterCommit) {
      try {
        action.run();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    afterCommit = null;
    if (failure != null) {
      throw failure;
    }
  }
}
