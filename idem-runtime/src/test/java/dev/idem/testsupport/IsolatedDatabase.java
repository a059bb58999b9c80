package dev.idem.testsupport;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;

/**
 * A fresh database (PostgreSQL schema, MariaDB database, H2 in-memory database) of its own, with a
 * pooled DataSource, dropped on {@link #close()}. Several people run the suites against the same
 * servers at once, so every test class must use one of these.
 *
 * <p>If PostgreSQL or MariaDB is unreachable, the calling tests are skipped (loudly, on stderr) -
 * unless the system property {@code idem.requireDatabases} is {@code true}, as on CI, where they fail.
 */
public final class IsolatedDatabase implements AutoCloseable {

  /** Enough connections for the concurrency tests' threads. */
  public static final int POOL_SIZE = 40;

  private final TestDatabase database;
  private final String name;
  private final String url;
  private final HikariDataSource dataSource;

  private IsolatedDatabase(TestDatabase database, String name, String url) {
    this.database = database;
    this.name = name;
    this.url = url;
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    if (database != TestDatabase.H2) {
      config.setUsername(database.user());
      config.setPassword(database.password());
    }
    config.setMaximumPoolSize(POOL_SIZE);
    config.setMinimumIdle(1);
    config.setPoolName("idem-test-" + name);
    this.dataSource = new HikariDataSource(config);
  }

  /**
   * Creates a fresh isolated database.
   *
   * @param database which kind
   * @return the database; close it to drop it
   */
  public static IsolatedDatabase open(TestDatabase database) {
    String name = "idem_t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    switch (database) {
      case H2:
        return new IsolatedDatabase(database, name, "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
      case POSTGRESQL:
        admin(database, "CREATE SCHEMA " + name);
        return new IsolatedDatabase(database, name, withParameter(database.adminUrl(), "currentSchema=" + name));
      case MARIADB:
        admin(database, "CREATE DATABASE " + name + " CHARACTER SET utf8mb4");
        String base = database.adminUrl();
        int slash = base.indexOf('/', "jdbc:mariadb://".length());
        int query = base.indexOf('?');
        String url = base.substring(0, slash + 1) + name + (query >= 0 ? base.substring(query) : "");
        return new IsolatedDatabase(database, name, url);
      default:
        throw new AssertionError(database);
    }
  }

  private static String withParameter(String url, String parameter) {
    return url + (url.contains("?") ? "&" : "?") + parameter;
  }

  private static void admin(TestDatabase database, String sql) {
    try (Connection connection = DriverManager.getConnection(database.adminUrl(), database.user(), database.password());
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      unreachable(database, e);
    }
  }

  private static void unreachable(TestDatabase database, SQLException e) {
    String reason = database.displayName() + " at " + database.adminUrl() + " is not usable: " + e.getMessage();
    if (Boolean.getBoolean("idem.requireDatabases")) {
      throw new AssertionError(reason + " (idem.requireDatabases=true, so this fails instead of skipping)", e);
    }
    System.err.println("*** SKIPPING " + database.displayName() + " tests: " + reason + " ***");
    Assumptions.abort(reason);
  }

  public TestDatabase database() {
    return database;
  }

  /** @return the pooled DataSource of this database */
  public DataSource dataSource() {
    return dataSource;
  }

  /** @return the JDBC URL of this database */
  public String url() {
    return url;
  }

  /** @return the user to connect as (e.g. from a child JVM); empty for H2 */
  public String user() {
    return database == TestDatabase.H2 ? "" : database.user();
  }

  /** @return the password to connect with; empty for H2 */
  public String password() {
    return database == TestDatabase.H2 ? "" : database.password();
  }

  /** @return the database's (or schema's) name */
  public String name() {
    return name;
  }

  /** Runs statements in auto-commit mode, e.g. to set up or clear tables. */
  public void execute(String... sql) {
    try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
      for (String s : sql) {
        statement.execute(s);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Failed: " + String.join("; ", sql), e);
    }
  }

  /** Drops the database and closes the pool. */
  @Override
  public void close() {
    dataSource.close();
    switch (database) {
      case H2 -> shutDownH2();
      case POSTGRESQL -> admin(database, "DROP SCHEMA IF EXISTS " + name + " CASCADE");
      case MARIADB -> admin(database, "DROP DATABASE IF EXISTS " + name);
      default -> throw new AssertionError(database);
    }
  }

  private void shutDownH2() {
    try (Connection connection = DriverManager.getConnection(url);
        Statement statement = connection.createStatement()) {
      statement.execute("SHUTDOWN");
    } catch (SQLException e) {
      // Already gone: nothing to free.
    }
  }

  @Override
  public String toString() {
    return database.displayName() + " " + name.toLowerCase(Locale.ROOT);
  }
}
