package dev.idem.benchmarks.jmh;

import dev.idem.testing.IsolatedDatabase;
import dev.idem.testing.TestDatabase;
import javax.sql.DataSource;

/**
 * A fresh database of its own for one benchmark fork (an {@link IsolatedDatabase}: a PostgreSQL schema, a MariaDB
 * database, an H2 database file in a temporary directory) with the business tables and a connection pool; dropped
 * on {@link #close()}. Others may use the same servers at the same time, so nothing is shared between runs.
 */
public final class BenchDatabase implements AutoCloseable {

  /** One connection per benchmark thread at the most threads we run; the same pool for every variant. */
  public static final int POOL_SIZE = 8;

  /** A full pool from the start; H2 file-backed with its default durability (see the report's settings). */
  private static final IsolatedDatabase.Settings SETTINGS =
      new IsolatedDatabase.Settings("idem_b_", POOL_SIZE, POOL_SIZE, true);

  private final IsolatedDatabase database;

  private BenchDatabase(IsolatedDatabase database) {
    this.database = database;
  }

  /** Creates a fresh database with the business tables (orders, request_keys, bench_invoices). */
  public static BenchDatabase open(TestDatabase database) {
    BenchDatabase opened = new BenchDatabase(IsolatedDatabase.open(database, SETTINGS));
    opened.execute(
        "CREATE TABLE orders (id BIGINT NOT NULL PRIMARY KEY, customer_id VARCHAR(64) NOT NULL,"
            + " sku VARCHAR(64) NOT NULL, quantity INT NOT NULL, total_cents BIGINT NOT NULL)",
        // The hand-written pattern's unique-key table: the key and the response to replay.
        "CREATE TABLE request_keys (request_key VARCHAR(255) NOT NULL PRIMARY KEY, order_id BIGINT NOT NULL,"
            + " total_cents BIGINT NOT NULL, created_at BIGINT NOT NULL)",
        // The same pattern's key table in the shape of idem_record, for the control experiment and the floors; the
        // owner token and lease of a claim committed before its work (the CLAIM floor) as idem_record has them.
        "CREATE TABLE request_keys_wide (scope VARCHAR(128) NOT NULL, request_key VARCHAR(255) NOT NULL,"
            + " state VARCHAR(16) NOT NULL, fingerprint VARCHAR(64) NOT NULL, order_id BIGINT NOT NULL,"
            + " total_cents BIGINT NOT NULL, owner_token VARCHAR(36) NULL, lease_until BIGINT NULL,"
            + " created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, PRIMARY KEY (scope, request_key))",
        "CREATE INDEX request_keys_wide_expires_idx ON request_keys_wide (expires_at)",
        "CREATE TABLE bench_invoices (id BIGINT NOT NULL PRIMARY KEY, status VARCHAR(16) NOT NULL,"
            + " version BIGINT NOT NULL)");
    return opened;
  }

  public TestDatabase database() {
    return database.database();
  }

  public DataSource dataSource() {
    return database.dataSource();
  }

  public String url() {
    return database.url();
  }

  /** Runs statements in auto-commit mode. */
  public void execute(String... sql) {
    database.execute(sql);
  }

  @Override
  public void close() {
    database.close();
  }
}
