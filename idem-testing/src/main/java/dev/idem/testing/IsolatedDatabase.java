package dev.idem.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.Locale;
import java.util.UUID;
import java.util.stream.Stream;
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

  /**
   * How an isolated database is opened.
   *
   * @param namePrefix the start of the generated database (schema) name
   * @param poolSize the pool's maximum size
   * @param minimumIdle connections the pool keeps open
   * @param h2OnDisk whether H2 is file-backed in a temporary directory (commits reach a disk) instead of in memory
   */
  public record Settings(String namePrefix, int poolSize, int minimumIdle, boolean h2OnDisk) {
    /** What test classes use: in-memory H2, a pool for the concurrency tests. */
    public static final Settings TESTS = new Settings("idem_t_", POOL_SIZE, 1, false);
  }

  private final TestDatabase database;
  private final String name;
  private final String url;
  /** The H2 files' directory, deleted on close; null unless {@link Settings#h2OnDisk()}. */
  private final Path h2Directory;
  private final HikariDataSource dataSource;

  private IsolatedDatabase(TestDatabase database, String name, String url, Path h2Directory, Settings settings) {
    this.database = database;
    this.name = name;
    this.url = url;
    this.h2Directory = h2Directory;
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    if (database != TestDatabase.H2) {
      config.setUsername(database.user());
      config.setPassword(database.password());
    }
    config.setMaximumPoolSize(settings.poolSize());
    config.setMinimumIdle(settings.minimumIdle());
    config.setPoolName("idem-test-" + name);
    this.dataSource = new HikariDataSource(config);
  }

  /**
   * Creates a fresh isolated database with the {@link Settings#TESTS tests' settings}.
   *
   * @param database which kind
   * @return the database; close it to drop it
   */
  public static IsolatedDatabase open(TestDatabase database) {
    return open(database, Settings.TESTS);
  }

  /**
   * Creates a fresh isolated database.
   *
   * @param database which kind
   * @param settings how
   * @return the database; close it to drop it
   */
  public static IsolatedDatabase open(TestDatabase database, Settings settings) {
    String name = settings.namePrefix() + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    switch (database) {
      case H2:
        if (settings.h2OnDisk()) {
          Path directory = temporaryDirectory();
          return new IsolatedDatabase(database, name, "jdbc:h2:file:" + directory.resolve(name), directory,
              settings);
        }
        return new IsolatedDatabase(database, name, "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1", null, settings);
      case POSTGRESQL:
        admin(database, "CREATE SCHEMA " + name);
        return new IsolatedDatabase(database, name, withParameter(database.adminUrl(), "currentSchema=" + name),
            null, settings);
      case MARIADB:
        admin(database, "CREATE DATABASE " + name + " CHARACTER SET utf8mb4");
        String base = database.adminUrl();
        int slash = base.indexOf('/', "jdbc:mariadb://".length());
        int query = base.indexOf('?');
        String url = base.substring(0, slash + 1) + name + (query >= 0 ? base.substring(query) : "");
        return new IsolatedDatabase(database, name, url, null, settings);
      default:
        throw new AssertionError(database);
    }
  }

  private static Path temporaryDirectory() {
    try {
      return Files.createTempDirectory("idem-h2");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
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

  /** @return which kind of database this is */
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

  /**
   * Runs statements in auto-commit mode, e.g. to set up or clear tables.
   *
   * @param sql the statements
   */
  public void execute(String... sql) {
    try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
      for (String s : sql) {
        statement.execute(s);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Failed: " + String.join("; ", sql), e);
    }
  }

  /**
   * Runs a query in auto-commit mode and returns the first column of its first row, e.g. a {@code COUNT(*)}.
   *
   * @param sql a query returning at least one row whose first column is a number
   * @return that number
   */
  public long queryLong(String sql) {
    try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
        java.sql.ResultSet rs = statement.executeQuery(sql)) {
      if (!rs.next()) {
        throw new IllegalStateException("No row: " + sql);
      }
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException("Failed: " + sql, e);
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
    if (h2Directory != null) {
      // File-backed, without DB_CLOSE_DELAY: H2 closed it with the pool's last connection; only files are left.
      try (Stream<Path> files = Files.walk(h2Directory)) {
        files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
      } catch (IOException e) {
        System.err.println("Could not delete " + h2Directory + ": " + e.getMessage());
      }
      return;
    }
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
