package dev.idem.runtime.internal;

import dev.idem.runtime.Dialect;

import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Everything idem's runtime says to one database about {@code idem_record}: how a key is claimed without poisoning
 * the transaction, how the claimed row is read, how expired rows are purged in batches, and how errors are
 * classified (by SQLState and vendor code only, never by message text). One instance per {@link Dialect}; the
 * user picks the {@link Dialect}, the runtime's internals talk to this.
 */
abstract class SqlDialect {

  static final SqlDialect H2 = new H2Dialect();
  static final SqlDialect POSTGRESQL = new PostgresDialect();
  static final SqlDialect MARIADB = new MariaDbDialect();

  private static final String LEASE_CLAIM_COLUMNS =
      " (scope, idem_key, state, fingerprint, owner_token, lease_until, created_at, expires_at)"
          + " VALUES (?, ?, 'IN_PROGRESS', ?, ?, ?, ?, ?)";

  private final Dialect dialect;

  private SqlDialect(Dialect dialect) {
    this.dialect = dialect;
  }

  /** The SQL of {@code dialect}. */
  static SqlDialect of(Dialect dialect) {
    switch (dialect) {
      case H2:
        return H2;
      case POSTGRESQL:
        return POSTGRESQL;
      case MARIADB:
        return MARIADB;
      default:
        throw new AssertionError(dialect);
    }
  }

  /** @return the user-facing dialect this SQL is for */
  Dialect dialect() {
    return dialect;
  }

  @Override
  public String toString() {
    return dialect.toString();
  }

  /** Classpath resource holding the DDL, with {@code idem_record} as the table name. */
  abstract String schemaResource();

  /**
   * SQL inserting a new record; parameters: scope, key, fingerprint, created_at, expires_at.
   * Executed by {@link #claim(PreparedStatement)}.
   */
  abstract String claimSql(String table);

  /**
   * Runs the claim statement.
   *
   * @return true if this transaction inserted the row, false if the key is already recorded
   */
  boolean claim(PreparedStatement claim) throws SQLException {
    return claim.executeUpdate() == 1;
  }

  /**
   * SQL inserting an in-progress claim ({@code CLAIM} mode) unless the key is recorded; parameters: scope, key,
   * fingerprint, owner_token, lease_until, created_at, expires_at. Executed by {@link #claim(PreparedStatement)}.
   */
  abstract String leaseClaimSql(String table);

  /** SQL reading a record by scope and key, seeing the latest committed version. */
  String selectSql(String table) {
    return "SELECT state, fingerprint, result, error_type, created_at, expires_at FROM " + table
        + " WHERE scope = ? AND idem_key = ?";
  }

  /** SQL deleting at most {@code ?2} records whose {@code expires_at <= ?1}. */
  abstract String purgeSql(String table);

  /** Whether retrying the whole transaction may succeed (deadlock, serialization, lock timeout). */
  boolean isTransient(SQLException e) {
    for (SQLException s : SqlErrors.chain(e)) {
      String state = s.getSQLState();
      if (state != null && state.startsWith("40")) {
        return true;
      }
    }
    return false;
  }

  /** Whether the failure is a unique-constraint violation. */
  boolean isDuplicateKey(SQLException e) {
    for (SQLException s : SqlErrors.chain(e)) {
      if ("23505".equals(s.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  private static final class PostgresDialect extends SqlDialect {
    PostgresDialect() {
      super(Dialect.POSTGRESQL);
    }

    @Override
    String schemaResource() {
      return "schema/postgresql.sql";
    }

    @Override
    String claimSql(String table) {
      // ON CONFLICT DO NOTHING waits for a concurrent uncommitted claim of the same key and never
      // raises a duplicate-key error, which would abort the whole PostgreSQL transaction.
      return "INSERT INTO " + table + " (scope, idem_key, state, fingerprint, created_at, expires_at)"
          + " VALUES (?, ?, 'COMPLETED', ?, ?, ?) ON CONFLICT (scope, idem_key) DO NOTHING";
    }

    @Override
    String leaseClaimSql(String table) {
      return "INSERT INTO " + table + LEASE_CLAIM_COLUMNS + " ON CONFLICT (scope, idem_key) DO NOTHING";
    }

    @Override
    String purgeSql(String table) {
      // PostgreSQL has no DELETE ... LIMIT; the subquery picks a batch of rows, the outer delete finds them by
      // ctid (a Tid Scan). ORDER BY makes the index on expires_at the only cheap plan: without it, when most rows
      // are expired the planner prefers a sequential scan, which must step over every row the earlier batches
      // deleted (dead until vacuumed) again and again, so that each batch gets slower than the one before.
      return "DELETE FROM " + table + " WHERE ctid = ANY(ARRAY(SELECT ctid FROM " + table
          + " WHERE expires_at <= ? ORDER BY expires_at LIMIT ?))";
    }
  }

  private static final class MariaDbDialect extends SqlDialect {
    private static final int ER_DUP_ENTRY = 1062;
    private static final int ER_LOCK_WAIT_TIMEOUT = 1205;
    private static final int ER_LOCK_DEADLOCK = 1213;

    MariaDbDialect() {
      super(Dialect.MARIADB);
    }

    @Override
    String schemaResource() {
      return "schema/mariadb.sql";
    }

    @Override
    String claimSql(String table) {
      // INSERT IGNORE waits for a concurrent uncommitted claim and turns the duplicate into
      // "0 rows". It would also hide truncation, but keys and scopes are validated beforehand.
      return "INSERT IGNORE INTO " + table
          + " (scope, idem_key, state, fingerprint, created_at, expires_at) VALUES (?, ?, 'COMPLETED', ?, ?, ?)";
    }

    @Override
    String leaseClaimSql(String table) {
      return "INSERT IGNORE INTO " + table + LEASE_CLAIM_COLUMNS;
    }

    @Override
    String selectSql(String table) {
      // A locking read sees the latest committed row; a plain read under REPEATABLE READ would use
      // the snapshot taken before the competing claim committed and find nothing.
      return super.selectSql(table) + " LOCK IN SHARE MODE";
    }

    @Override
    String purgeSql(String table) {
      return "DELETE FROM " + table + " WHERE expires_at <= ? ORDER BY expires_at LIMIT ?";
    }

    @Override
    boolean isTransient(SQLException e) {
      for (SQLException s : SqlErrors.chain(e)) {
        int code = s.getErrorCode();
        if (code == ER_LOCK_DEADLOCK || code == ER_LOCK_WAIT_TIMEOUT) {
          return true;
        }
      }
      return super.isTransient(e);
    }

    @Override
    boolean isDuplicateKey(SQLException e) {
      for (SQLException s : SqlErrors.chain(e)) {
        if (s.getErrorCode() == ER_DUP_ENTRY) {
          return true;
        }
      }
      return super.isDuplicateKey(e);
    }
  }

  private static final class H2Dialect extends SqlDialect {
    private static final int LOCK_TIMEOUT = 50200;
    private static final int CONCURRENT_UPDATE = 90131;
    private static final int DEADLOCK = 40001;

    H2Dialect() {
      super(Dialect.H2);
    }

    @Override
    String schemaResource() {
      return "schema/h2.sql";
    }

    @Override
    String claimSql(String table) {
      return "INSERT INTO " + table + " (scope, idem_key, state, fingerprint, created_at, expires_at)"
          + " VALUES (?, ?, 'COMPLETED', ?, ?, ?)";
    }

    @Override
    String leaseClaimSql(String table) {
      return "INSERT INTO " + table + LEASE_CLAIM_COLUMNS;
    }

    @Override
    boolean claim(PreparedStatement claim) throws SQLException {
      // A plain INSERT: H2 waits for a concurrent uncommitted claim of the key, then fails with
      // 23505 if it committed. H2 rolls back only the failed statement, never the transaction, so
      // catching the duplicate is safe here (unlike on PostgreSQL).
      try {
        return claim.executeUpdate() == 1;
      } catch (SQLException e) {
        if (isDuplicateKey(e)) {
          return false;
        }
        throw e;
      }
    }

    @Override
    String purgeSql(String table) {
      return "DELETE FROM " + table + " WHERE expires_at <= ? FETCH FIRST ? ROWS ONLY";
    }

    @Override
    boolean isTransient(SQLException e) {
      for (SQLException s : SqlErrors.chain(e)) {
        int code = s.getErrorCode();
        if (code == LOCK_TIMEOUT || code == CONCURRENT_UPDATE || code == DEADLOCK) {
          return true;
        }
      }
      return super.isTransient(e);
    }
  }
}
