package dev.idem.benchmarks.retention;

import dev.idem.runtime.RecordLayout;
import dev.idem.testing.IsolatedDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * What the retention benchmark does to a record table by the database's own means, beside idem's statements: the
 * fill, statistics, sizes, and what a removal leaves behind. {@link PostgresRecordTables} and
 * {@link MariaDbRecordTables}.
 */
abstract class RecordTables implements AutoCloseable {

  /** Table and index sizes in bytes, and the free space inside the table's files (MariaDB's data_free; else 0). */
  record Sizes(long dataBytes, long indexBytes, long freeBytes) {
    long totalBytes() {
      return dataBytes + indexBytes;
    }
  }

  /** What ends a fill: recreates what {@link #prepareFill} took away. */
  interface FillFinish {
    void run() throws SQLException;
  }

  protected final IsolatedDatabase database;

  protected RecordTables(IsolatedDatabase database) {
    this.database = database;
  }

  /**
   * @param database the isolated database the benchmark runs in
   * @param mariaDbBufferPool MariaDB only: the InnoDB buffer pool to run with (e.g. {@code 8G}); empty: the server's
   * @return the database's tables
   */
  static RecordTables of(IsolatedDatabase database, String mariaDbBufferPool) throws SQLException {
    return switch (database.database()) {
      case POSTGRESQL -> new PostgresRecordTables(database);
      case MARIADB -> new MariaDbRecordTables(database, mariaDbBufferPool);
      default -> throw new IllegalArgumentException("The retention benchmark runs on PostgreSQL and MariaDB (the"
          + " layouts idem partitions), not on " + database.database().displayName());
    };
  }

  /** @return the server's name and version, e.g. {@code PostgreSQL 15.20} */
  final String server() throws SQLException {
    try (Connection connection = database.dataSource().getConnection()) {
      return database.database().displayName() + " " + connection.getMetaData().getDatabaseProductVersion();
    }
  }

  /** @return settings of the server the figures depend on, as a sentence for the report */
  abstract String settings() throws SQLException;

  /** @return how the fill is done, as a sentence for the report */
  abstract String fillMethod();

  /** Readies a table for its fill; the returned finish undoes it after the fill (and checks that it did). */
  abstract FillFinish prepareFill(String table) throws SQLException;

  /** Inserts the fill's records {@code first} to {@code last} (both included) in one statement. */
  abstract void insert(Connection connection, String table, RecordLayout layout, RecordFill fill, long first,
      long last) throws SQLException;

  /** Brings the planner's statistics (and PostgreSQL's visibility map) up to date, as a maintained table has them. */
  abstract void analyze(String table) throws SQLException;

  /** The table's sizes, its partitions included. */
  abstract Sizes sizes(String table) throws SQLException;

  /** @return what the table's data is, for the report's row of bytes per record */
  abstract String dataLabel();

  /** @return what the table's indexes are, for the report */
  abstract String indexLabel();

  /** @return how idem's purgeExpired removes one day in this layout, for the report */
  abstract String removalLabel(RecordLayout layout);

  /** @return whether {@link Sizes#freeBytes()} is measured (MariaDB's data_free) */
  boolean hasFreeSpace() {
    return false;
  }

  /** @return the row of the report that says what a removal left behind */
  abstract String leftoverLabel();

  /** What the last removal left behind in the table (see {@link #leftoverLabel}). */
  abstract double leftover(String table) throws SQLException;

  final void truncate(String table) throws SQLException {
    execute("TRUNCATE TABLE " + table);
  }

  final void drop(String table) throws SQLException {
    execute("DROP TABLE IF EXISTS " + table);
  }

  /** Restores what the benchmark changed on the server. */
  @Override
  public void close() throws SQLException {}

  final void execute(String sql) throws SQLException {
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  /** The rows of a query with string parameters, each row's columns as strings. */
  final List<String[]> query(String sql, String... parameters) throws SQLException {
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        statement.setString(i + 1, parameters[i]);
      }
      List<String[]> rows = new ArrayList<>();
      try (ResultSet rs = statement.executeQuery()) {
        int columns = rs.getMetaData().getColumnCount();
        while (rs.next()) {
          String[] row = new String[columns];
          for (int c = 0; c < columns; c++) {
            row[c] = rs.getString(c + 1);
          }
          rows.add(row);
        }
      }
      return rows;
    }
  }
}
