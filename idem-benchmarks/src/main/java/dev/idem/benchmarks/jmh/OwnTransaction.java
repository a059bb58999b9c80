package dev.idem.benchmarks.jmh;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The transaction skeleton of the benchmarks' own JDBC code (the plain INSERT, the diagnostics' statements sent by
 * hand): a pooled connection, auto-commit off, the work, commit, or roll back and rethrow, and the connection left
 * in auto-commit mode as the pool lent it.
 */
final class OwnTransaction {

  /** The statements of one transaction. */
  interface Work {
    void run(Connection connection) throws SQLException;
  }

  private OwnTransaction() {}

  static void run(DataSource pool, Work work) throws SQLException {
    try (Connection connection = pool.getConnection()) {
      connection.setAutoCommit(false);
      try {
        work.run(connection);
        connection.commit();
      } catch (SQLException | RuntimeException e) {
        connection.rollback();
        throw e;
      } finally {
        connection.setAutoCommit(true);
      }
    }
  }
}
