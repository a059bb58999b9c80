package dev.idem.runtime.internal;

import dev.idem.runtime.Dialect;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyStoreException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Creates the record table and the transition log from the dialect's DDL resources, for
 * {@link IdemRuntime#createSchema()}. The resources are the documented schema: applications that migrate with
 * Flyway or Liquibase run the same files.
 */
final class SchemaInstaller {

  private final DataSource dataSource;
  private final SqlDialect dialect;
  private final String tableName;

  SchemaInstaller(DataSource dataSource, SqlDialect dialect, String tableName) {
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.tableName = tableName;
  }

  void createSchema() {
    String ddl = load(dialect.schemaResource()).replace("idem_record", tableName);
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      for (String sql : statements(ddl)) {
        statement.execute(sql);
      }
      // The transition log of @StateTransition methods, created alongside.
      for (String sql : statements(load(dialect.transitionLogSchemaResource()))) {
        statement.execute(sql);
      }
      // The single-flight lock table (@SingleFlight, IdemRuntime.singleFlight).
      for (String sql : statements(load(dialect.lockSchemaResource()))) {
        statement.execute(sql);
      }
      // The transactional outbox (@OutboxEvent publishers, the outbox relay).
      for (String sql : statements(load(dialect.outboxSchemaResource()))) {
        statement.execute(sql);
      }
      if (!connection.getAutoCommit()) {
        connection.commit();
      }
      if (dialect.switchedFrom() != null) {
        if (dialect.dialect() == Dialect.MARIADB) {
          waitForMariaDbWritersOf(connection, dialect.switchedFrom());
        } else {
          waitForWritersOf(connection, dialect.switchedFrom());
        }
      }
    } catch (SQLException e) {
      throw new IdempotencyStoreException("Creating the table " + tableName + " failed", e);
    }
  }

  /**
   * After a switch to day partitions: waits until no transaction writes the old table any more (a SHARE lock
   * conflicts with the ROW EXCLUSIVE lock of every insert or update still open on it), so that a claim of the old
   * layout that was still uncommitted when its runtime stopped is committed, and seen by the new claims' probe, or
   * gone. The old runtimes must be stopped first: a claim they make after this returns is not seen.
   */
  private static void waitForWritersOf(Connection connection, String oldTable) throws SQLException {
    boolean autoCommit = connection.getAutoCommit();
    connection.setAutoCommit(false);
    try (Statement statement = connection.createStatement()) {
      statement.execute("LOCK TABLE " + oldTable + " IN SHARE MODE");
      connection.commit();
    } finally {
      Quietly.rollback(connection);
      connection.setAutoCommit(autoCommit);
    }
  }

  /**
   * {@link #waitForWritersOf} on MariaDB: {@code LOCK TABLES old READ}, then {@code UNLOCK TABLES}. The read lock is
   * a metadata lock (SHARED_READ_ONLY) that conflicts with the SHARED_WRITE metadata lock every transaction that
   * inserted or updated the table holds until it commits or rolls back, so it waits for exactly the old layout's
   * uncommitted writers (up to {@code lock_wait_timeout}), not for readers, and locks no rows. Readers include the
   * switched runtimes' {@code LOCK IN SHARE MODE} reads (SHARED_READ): a second node's switch does not wait for the
   * first node's traffic (checked against MariaDB 10.11). A locking {@code
   * SELECT} over the table would also wait for them, but only by reading and locking every row; {@code FLUSH TABLES
   * … WITH READ LOCK} needs the RELOAD privilege and closes the table's handlers. LOCK TABLES commits an open
   * transaction, so it runs in auto-commit mode, after the DDL's commit.
   */
  private static void waitForMariaDbWritersOf(Connection connection, String oldTable) throws SQLException {
    boolean autoCommit = connection.getAutoCommit();
    connection.setAutoCommit(true);
    try (Statement statement = connection.createStatement()) {
      try {
        statement.execute("LOCK TABLES " + oldTable + " READ");
      } finally {
        statement.execute("UNLOCK TABLES"); // a pooled connection goes back without the lock
      }
    } finally {
      connection.setAutoCommit(autoCommit);
    }
  }

  private static String load(String resource) {
    try (InputStream in = IdemRuntime.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("Missing resource " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("Cannot read " + resource, e);
    }
  }

  /** Splits our own DDL files: they have only line comments and no semicolons in literals. */
  static List<String> statements(String script) {
    StringBuilder withoutComments = new StringBuilder(script.length());
    for (String line : script.split("\n")) {
      int comment = line.indexOf("--");
      withoutComments.append(comment >= 0 ? line.substring(0, comment) : line).append('\n');
    }
    List<String> statements = new ArrayList<>();
    for (String statement : withoutComments.toString().split(";")) {
      if (!statement.isBlank()) {
        statements.add(statement.strip());
      }
    }
    return statements;
  }
}
