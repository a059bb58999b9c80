package dev.idem.runtime.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Binds and runs the statements on one record that the transactional mode runs, and batches for a key they take
 * over; their SQL is {@link SqlDialect}'s. Their records are inserted as {@code COMPLETED} right away: nobody sees
 * them before the commit, and then the result is there too. ({@code CLAIM} records, visible while in progress, are
 * bound in {@link ClaimExecutor}.)
 */
final class RecordStatements {

  /** A record as read after the claim found the key recorded. */
  record Stored(String state, String fingerprint, String result, String errorType, long createdAt,
                long expiresAt) {}

  private final SqlDialect dialect;
  private final String claimSql;
  private final String selectSql;
  private final String takeOverSql;
  private final String storeResultSql;

  RecordStatements(SqlDialect dialect, String table) {
    this.dialect = dialect;
    this.claimSql = dialect.claimSql(table);
    this.selectSql = dialect.selectSql(table);
    this.takeOverSql = dialect.takeOverSql(table);
    this.storeResultSql = dialect.storeResultSql(table);
  }

  /** @return true if this transaction inserted the record, false if the key is recorded already */
  boolean claim(Connection connection, String scope, String key, String fingerprint, long now, long expiresAt)
      throws SQLException {
    try (PreparedStatement claim = connection.prepareStatement(claimSql)) {
      claim.setString(1, scope);
      claim.setString(2, key);
      claim.setString(3, fingerprint);
      claim.setLong(4, now);
      claim.setLong(5, expiresAt);
      return dialect.claim(claim);
    }
  }

  /** The latest committed record of the key, or null. */
  Stored read(Connection connection, String scope, String key) throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(selectSql)) {
      select.setString(1, scope);
      select.setString(2, key);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        return new Stored(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getLong(5),
            rs.getLong(6));
      }
    }
  }

  /** Reuses an expired record; guarded by its old expiry so that only one caller wins. */
  boolean takeOver(Connection connection, String scope, String key, String fingerprint, long now, long expiresAt,
      long oldExpiresAt) throws SQLException {
    try (PreparedStatement update = connection.prepareStatement(takeOverSql)) {
      update.setString(1, fingerprint);
      update.setLong(2, now);
      update.setLong(3, expiresAt);
      update.setString(4, scope);
      update.setString(5, key);
      update.setLong(6, oldExpiresAt);
      return update.executeUpdate() == 1;
    }
  }

  /** Stores a result, or with {@code errorType} a business failure's arguments, in a record this transaction claimed. */
  void storeResult(Connection connection, String scope, String key, String json, String errorType)
      throws SQLException {
    try (PreparedStatement store = connection.prepareStatement(storeResultSql)) {
      store.setString(1, json);
      store.setString(2, errorType);
      store.setString(3, scope);
      store.setString(4, key);
      store.executeUpdate();
    }
  }
}
