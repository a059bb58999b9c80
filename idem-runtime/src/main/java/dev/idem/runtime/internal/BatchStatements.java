package dev.idem.runtime.internal;

import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How one dialect claims many keys at once and reads back the records of those it could not claim. Each claim
 * inserts rows that are already COMPLETED (nobody sees them before the commit, which also commits the batch's
 * work) and reports exactly which keys this transaction inserted; a key recorded by someone else, committed or
 * not, is never reported. Keys arrive sorted, so that competing batches lock common keys in the same order.
 */
abstract class BatchStatements {

  /** Rows per statement where a statement's text grows with the rows (placeholders are limited to 65,535). */
  static final int ROWS_PER_STATEMENT = 1000;

  final String table;

  private BatchStatements(String table) {
    this.table = table;
  }

  static BatchStatements of(SqlDialect dialect, String table) {
    if (dialect == SqlDialect.POSTGRESQL) {
      return new Postgres(table);
    }
    if (dialect == SqlDialect.MARIADB) {
      return new MariaDb(table);
    }
    if (dialect == SqlDialect.H2) {
      return new H2(table);
    }
    throw new IllegalArgumentException("No batch claims for " + dialect);
  }

  /**
   * Inserts a record for each of {@code keys}, waiting for competing uncommitted claims of the same keys.
   *
   * @param keys distinct keys, sorted
   * @param fingerprints parallel to {@code keys}
   * @return the keys this transaction inserted
   */
  abstract Set<String> claim(Connection connection, String scope, List<String> keys, List<String> fingerprints,
                             long now, long expiresAt) throws SQLException;

  /** The latest committed records of the given keys; absent keys are missing from the map. */
  Map<String, StoredRecord> read(Connection connection, String scope, List<String> keys) throws SQLException {
    Map<String, StoredRecord> records = new HashMap<>(keys.size() * 2);
    for (int from = 0; from < keys.size(); from += ROWS_PER_STATEMENT) {
      List<String> chunk = keys.subList(from, Math.min(keys.size(), from + ROWS_PER_STATEMENT));
      try (PreparedStatement select = connection.prepareStatement(readSql(chunk.size()))) {
        select.setString(1, scope);
        for (int i = 0; i < chunk.size(); i++) {
          select.setString(i + 2, chunk.get(i));
        }
        collect(select, records);
      }
    }
    return records;
  }

  String readSql(int keys) {
    return "SELECT idem_key, state, fingerprint, expires_at FROM " + table + " WHERE scope = ? AND idem_key IN ("
        + placeholders(keys) + ")";
  }

  static void collect(PreparedStatement select, Map<String, StoredRecord> records) throws SQLException {
    try (ResultSet rows = select.executeQuery()) {
      while (rows.next()) {
        records.put(rows.getString(1), new StoredRecord(rows.getString(2), rows.getString(3), rows.getLong(4)));
      }
    }
  }

  static String placeholders(int count) {
    StringBuilder text = new StringBuilder(count * 3);
    for (int i = 0; i < count; i++) {
      text.append(i == 0 ? "?" : ", ?");
    }
    return text.toString();
  }

  /** What a batch needs to know about a record it could not claim. */
  record StoredRecord(String state, String fingerprint, long expiresAt) {}

  /**
   * One statement for the whole batch, whatever its size: the keys travel as two arrays that {@code unnest} turns
   * into rows, so the statement text never changes (one server-side plan) and there is no placeholder limit.
   * {@code ON CONFLICT DO NOTHING} waits for a competing uncommitted insert of a key, skips it once that commits
   * (or inserts it if that rolls back) and never raises the duplicate-key error that would abort the transaction;
   * {@code RETURNING} lists only the rows this statement inserted.
   */
  private static final class Postgres extends BatchStatements {
    private final String claimSql;
    private final String readSql;

    Postgres(String table) {
      super(table);
      this.claimSql = "INSERT INTO " + table + " (scope, idem_key, state, fingerprint, created_at, expires_at)"
          + " SELECT ?, m.idem_key, 'COMPLETED', m.fingerprint, ?, ?"
          + " FROM unnest(?::varchar[], ?::varchar[]) WITH ORDINALITY AS m(idem_key, fingerprint, n) ORDER BY m.n"
          // ORDER BY: rows are inserted, and keys locked, in the sorted order of the arrays.
          + " ON CONFLICT (scope, idem_key) DO NOTHING RETURNING idem_key";
      this.readSql = "SELECT idem_key, state, fingerprint, expires_at FROM " + table
          + " WHERE scope = ? AND idem_key = ANY(?::varchar[])";
    }

    @Override
    Set<String> claim(Connection connection, String scope, List<String> keys, List<String> fingerprints, long now,
                      long expiresAt) throws SQLException {
      try (PreparedStatement claim = connection.prepareStatement(claimSql)) {
        claim.setString(1, scope);
        claim.setLong(2, now);
        claim.setLong(3, expiresAt);
        claim.setArray(4, connection.createArrayOf("varchar", keys.toArray()));
        claim.setArray(5, connection.createArrayOf("varchar", fingerprints.toArray()));
        Set<String> inserted = new HashSet<>(keys.size() * 2);
        try (ResultSet rows = claim.executeQuery()) {
          while (rows.next()) {
            inserted.add(rows.getString(1));
          }
        }
        return inserted;
      }
    }

    @Override
    Map<String, StoredRecord> read(Connection connection, String scope, List<String> keys) throws SQLException {
      Map<String, StoredRecord> records = new HashMap<>(keys.size() * 2);
      try (PreparedStatement select = connection.prepareStatement(readSql)) {
        select.setString(1, scope);
        select.setArray(2, connection.createArrayOf("varchar", keys.toArray()));
        collect(select, records);
      }
      return records;
    }
  }

  /**
   * A multi-row {@code INSERT IGNORE … RETURNING} (MariaDB 10.5 and later; MySQL has no RETURNING): like the
   * single claim, it waits for a competing uncommitted insert of a key and turns the duplicate into "no row",
   * and RETURNING lists only the rows it inserted. The read is a locking read, which sees the latest committed
   * rows where a plain read under REPEATABLE READ would see the snapshot taken before a competitor committed.
   */
  private static final class MariaDb extends BatchStatements {

    MariaDb(String table) {
      super(table);
    }

    @Override
    Set<String> claim(Connection connection, String scope, List<String> keys, List<String> fingerprints, long now,
                      long expiresAt) throws SQLException {
      Set<String> inserted = new HashSet<>(keys.size() * 2);
      for (int from = 0; from < keys.size(); from += ROWS_PER_STATEMENT) {
        int to = Math.min(keys.size(), from + ROWS_PER_STATEMENT);
        try (PreparedStatement claim = connection.prepareStatement(claimSql(to - from))) {
          int parameter = 1;
          for (int i = from; i < to; i++) {
            claim.setString(parameter++, scope);
            claim.setString(parameter++, keys.get(i));
            claim.setString(parameter++, fingerprints.get(i));
            claim.setLong(parameter++, now);
            claim.setLong(parameter++, expiresAt);
          }
          try (ResultSet rows = claim.executeQuery()) {
            while (rows.next()) {
              inserted.add(rows.getString(1));
            }
          }
        }
      }
      return inserted;
    }

    private String claimSql(int rows) {
      StringBuilder sql = new StringBuilder("INSERT IGNORE INTO ").append(table)
          .append(" (scope, idem_key, state, fingerprint, created_at, expires_at) VALUES ");
      for (int i = 0; i < rows; i++) {
        sql.append(i == 0 ? "" : ", ").append("(?, ?, 'COMPLETED', ?, ?, ?)");
      }
      return sql.append(" RETURNING idem_key").toString();
    }

    @Override
    String readSql(int keys) {
      return super.readSql(keys) + " LOCK IN SHARE MODE";
    }
  }

  /**
   * A JDBC batch of the single claim's plain INSERT. H2 executes every row of a batch even when some fail, and
   * rolls back only the failed row's statement, never the transaction; the per-row update counts then say which
   * rows this transaction inserted. A row fails with a duplicate key (23505) once a competing claim has committed
   * (H2 waits for it first); any other failure is rethrown. H2 runs in-process, so a batch is as cheap as one
   * statement; its ON CONFLICT exists only in PostgreSQL mode and its MERGE would overwrite records.
   */
  private static final class H2 extends BatchStatements {
    private static final String DUPLICATE_KEY = "23505";
    private final String claimSql;

    H2(String table) {
      super(table);
      this.claimSql = "INSERT INTO " + table + " (scope, idem_key, state, fingerprint, created_at, expires_at)"
          + " VALUES (?, ?, 'COMPLETED', ?, ?, ?)";
    }

    @Override
    Set<String> claim(Connection connection, String scope, List<String> keys, List<String> fingerprints, long now,
                      long expiresAt) throws SQLException {
      int[] counts;
      try (PreparedStatement claim = connection.prepareStatement(claimSql)) {
        for (int i = 0; i < keys.size(); i++) {
          claim.setString(1, scope);
          claim.setString(2, keys.get(i));
          claim.setString(3, fingerprints.get(i));
          claim.setLong(4, now);
          claim.setLong(5, expiresAt);
          claim.addBatch();
        }
        try {
          counts = claim.executeBatch();
        } catch (BatchUpdateException e) {
          if (!onlyDuplicateKeys(e)) {
            throw e;
          }
          counts = e.getUpdateCounts();
        }
      }
      if (counts.length != keys.size()) {
        throw new SQLException("H2 reported " + counts.length + " update counts for a batch of " + keys.size());
      }
      Set<String> inserted = new HashSet<>(keys.size() * 2);
      for (int i = 0; i < counts.length; i++) {
        if (counts[i] == 1) {
          inserted.add(keys.get(i));
        }
      }
      return inserted;
    }

    /** Whether every failed row of the batch failed because its key is recorded already. */
    private boolean onlyDuplicateKeys(BatchUpdateException e) {
      SQLException failure = e.getNextException();
      if (failure == null) {
        return false;
      }
      // H2 chains one exception per failed row; each must be a duplicate key, judged on its own SQLState.
      for (; failure != null; failure = failure.getNextException()) {
        if (!DUPLICATE_KEY.equals(failure.getSQLState())) {
          return false;
        }
      }
      return true;
    }
  }
}
