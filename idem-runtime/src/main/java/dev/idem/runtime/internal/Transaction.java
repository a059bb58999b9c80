package dev.idem.runtime.internal;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;

/** The transaction a runtime has in progress on one thread. */
final class Transaction {

  final Connection connection;
  final boolean restoreAutoCommit;
  private List<Runnable> afterCommit;
  /** What the application gets to see of {@link #connection}; made on first use. */
  private GuardedConnection guarded;

  Transaction(Connection connection, boolean restoreAutoCommit) {
    this.connection = connection;
    this.restoreAutoCommit = restoreAutoCommit;
  }

  /** The connection as handed to application code, which must not end idem's transaction. */
  Connection guardedConnection() {
    if (guarded == null) {
      guarded = new GuardedConnection(connection);
    }
    return guarded;
  }

  void afterCommit(Runnable action) {
    if (afterCommit == null) {
      afterCommit = new ArrayList<>(2);
    }
    afterCommit.add(action);
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
