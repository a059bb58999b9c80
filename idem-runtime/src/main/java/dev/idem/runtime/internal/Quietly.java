package dev.idem.runtime.internal;

import dev.idem.runtime.IdemRuntime;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;

/**
 * Clean-up steps that run while another exception is on its way to the caller, or after the work is done: their
 * own failure is logged, never thrown, so that it cannot hide the exception that matters.
 */
final class Quietly {

  private static final System.Logger LOG = System.getLogger(IdemRuntime.class.getName());

  private Quietly() {}

  static void rollback(Connection connection) {
    try {
      connection.rollback();
    } catch (SQLException e) {
      LOG.log(closed(connection) ? Level.DEBUG : Level.WARNING, "Rollback failed", e);
    }
  }

  /**
   * Whether the connection is closed already, e.g. by a pool that evicted it after a fatal or timed-out statement
   * (HikariCP does so for a lock timeout): the database rolled its transaction back, so failing to roll back or to
   * reset it is no news worth a warning.
   */
  static boolean closed(Connection connection) {
    try {
      return connection.isClosed();
    } catch (SQLException e) {
      return true;
    }
  }

  static void rollback(Connection connection, Savepoint savepoint) {
    try {
      connection.rollback(savepoint);
    } catch (SQLException e) {
      LOG.log(Level.WARNING, "Rollback to savepoint failed", e);
    }
  }

  static void release(Connection connection, Savepoint savepoint) {
    try {
      connection.releaseSavepoint(savepoint);
    } catch (SQLException e) {
      // Harmless: the savepoint goes away with the transaction anyway.
      LOG.log(Level.DEBUG, "Releasing a savepoint failed", e);
    }
  }

  static void close(Connection connection) {
    try {
      connection.close();
    } catch (SQLException e) {
      LOG.log(Level.WARNING, "Closing a connection failed", e);
    }
  }
}
