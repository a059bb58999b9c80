package dev.idem.runtime.internal;

import java.sql.Connection;
import java.util.concurrent.Executor;

/**
 * The connection {@code currentConnection()} and {@code inTransaction(work)} hand out: the transaction belongs to
 * idem, which commits it together with the command's record, so ending it early would leave a record without the
 * outcome it stands for (or an outcome without its record). {@link #commit()}, {@link #rollback()},
 * {@link #setAutoCommit(boolean)} and {@link #abort(Executor)} throw an {@link IllegalStateException} naming the rule;
 * {@link #close()} does nothing, so that try-with-resources around a borrowed connection is harmless. Savepoints are
 * allowed: rolling back to one's own savepoint undoes only one's own work. Everything else is delegated, by hand
 * rather than through a reflective proxy, because it is on every statement's path.
 */
final class GuardedConnection extends ForwardingConnection {

  GuardedConnection(Connection connection) {
    super(connection);
  }

  private static IllegalStateException owned(String call) {
    return new IllegalStateException(call + " is not allowed on the connection of an idem transaction: idem commits"
        + " or rolls back the transaction itself, with the command's record (or, when it joined the application's"
        + " transaction, the application does, outside idem's calls); throw an exception to roll back");
  }

  @Override
  public void commit() {
    throw owned("commit()");
  }

  @Override
  public void rollback() {
    throw owned("rollback()");
  }

  @Override
  public void setAutoCommit(boolean autoCommit) {
    throw owned("setAutoCommit(" + autoCommit + ")");
  }

  @Override
  public void abort(Executor executor) {
    throw owned("abort()");
  }

  /** Does nothing: idem closes the connection when its transaction ends. */
  @Override
  public void close() {}
}
