package dev.idem.benchmarks.jmh;

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
import java.util.UUID;
import java.util.stream.Stream;
import javax.sql.DataSource;

/**
 * A fresh database of its own for one benchmark fork (a PostgreSQL schema, a MariaDB database, an H2 database
 * file in a temporary directory) with the business tables and a connection pool; dropped on {@link #close()}.
 * Others may use the same servers at the same time, so nothing is shared between runs.
 */
public final class BenchDatabase implements AutoCloseable {

  /** One connection per benchmark thread at the most threads we run; the same pool for every variant. */
  public static final int POOL_SIZE = 8;

  private final Database database;
  private final String name;
  private final String url;
  private final Path h2Directory;
  private final HikariDataSource dataSource;

  private BenchDatabase(Database database, String name, String url, Path h2Directory) {
    this.database = database;
    this.name = name;
    this.url = url;
    this.h2Directory = h2Directory;
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    if (database != Database.H2) {
      config.setUsername(database.user());
      config.setPassword(database.password());
    }
    config.setMaximumPoolSize(POOL_SIZE);
    config.setMinimumIdle(POOL_SIZE);
    config.setPoolName("idem-bench-" + name);
    this.dataSource = new HikariDataSource(config);
  }

  /** Creates a fresh database with the business tables (orders, request_keys, bench_invoices). */
  public static BenchDatabase open(Database database) {
    String name = "idem_b_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    BenchDatabase opened = switch (database) {
      case H2 -> {
        Path directory = temporaryDirectory();
        // File-backed with H2's default durability: see the report's settings section.
        yield new BenchDatabase(database, name, "jdbc:h2:file:" + directory.resolve(name), directory);
      }
      case POSTGRESQL -> {
        admin(database, "CREATE SCHEMA " + name);
        String base = database.adminUrl();
        yield new BenchDatabase(database, name, base + (base.contains("?") ? "&" : "?") + "currentSchema=" + name, null);
      }
      case MARIADB -> {
        admin(database, "CREATE DATABASE " + name + " CHARACTER SET utf8mb4");
        String base = database.adminUrl();
        int slash = base.indexOf('/', "jdbc:mariadb://".length());
        int query = base.indexOf('?');
        yield new BenchDatabase(database, name,
            base.substring(0, slash + 1) + name + (query >= 0 ? base.substring(query) : ""), null);
      }
    };
    opened.execute(
        "CREATE TABLE orders (id BIGINT NOT NULL PRIMARY KEY, customer_id VARCHAR(64) NOT NULL,"
            + " sku VARCHAR(64) NOT NULL, quantity INT NOT NULL, total_cents BIGINT NOT NULL)",
        // The hand-written pattern's unique-key table: the key and the response to replay.
        "CREATE TABLE request_keys (request_key VARCHAR(255) NOT NULL PRIMARY KEY, order_id BIGINT NOT NULL,"
            + " total_cents BIGINT NOT NULL, created_at BIGINT NOT NULL)",
        // The same pattern's key table in the shape of idem_record, for the control experiment.
        "CREATE TABLE request_keys_wide (scope VARCHAR(128) NOT NULL, request_key VARCHAR(255) NOT NULL,"
            + " state VARCHAR(16) NOT NULL, fingerprint VARCHAR(64) NOT NULL, order_id BIGINT NOT NULL,"
            + " total_cents BIGINT NOT NULL, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL,"
            + " PRIMARY KEY (scope, request_key))",
        "CREATE INDEX request_keys_wide_expires_idx ON request_keys_wide (expires_at)",
        "CREATE TABLE bench_invoices (id BIGINT NOT NULL PRIMARY KEY, status VARCHAR(16) NOT NULL,"
            + " version BIGINT NOT NULL)");
    return opened;
  }

  /** @return whether the server answers; used to leave out unreachable databases with a note */
  public static String unreachableReason(Database database) {
    if (database == Database.H2) {
      return null;
    }
    try (Connection ignored = DriverManager.getConnection(database.adminUrl(), database.user(), database.password())) {
      return null;
    } catch (SQLException e) {
      return database.displayName() + " at " + database.adminUrl() + ": " + e.getMessage();
    }
  }

  private static Path temporaryDirectory() {
    try {
      return Files.createTempDirectory("idem-bench-h2");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void admin(Database database, String sql) {
    try (Connection connection = DriverManager.getConnection(database.adminUrl(), database.user(), database.password());
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(database.displayName() + ": " + sql + " failed", e);
    }
  }

  public Database database() {
    return database;
  }

  public DataSource dataSource() {
    return dataSource;
  }

  public String url() {
    return url;
  }

  /** Runs statements in auto-commit mode. */
  public void execute(String... sql) {
    try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
      for (String s : sql) {
        statement.execute(s);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Failed: " + String.join("; ", sql), e);
    }
  }

  @Override
  public void close() {
    dataSource.close();
    switch (database) {
      case H2 -> deleteH2Files();
      case POSTGRESQL -> admin(database, "DROP SCHEMA IF EXISTS " + name + " CASCADE");
      case MARIADB -> admin(database, "DROP DATABASE IF EXISTS " + name);
    }
  }

  private void deleteH2Files() {
    // H2 closed the database with the pool's last connection (no DB_CLOSE_DELAY): only files are left.
    try (Stream<Path> files = Files.walk(h2Directory)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      System.err.println("Could not delete " + h2Directory + ": " + e.getMessage());
    }
  }
}
