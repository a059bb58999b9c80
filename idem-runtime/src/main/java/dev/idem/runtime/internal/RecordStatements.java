package dev.idem.runtime.internal;

import dev.idem.runtime.IdempotencyCommitUnknownException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Binds and runs the statements on one record that the transactional mode runs, and batches for a key they take
 * over; their SQL is {@link SqlDialect}'s. A command's record is inserted {@code PENDING} and completed with its
 * outcome in the same transaction: nobody sees it before the commit, and then the outcome is there too; a committed
 * {@code PENDING} record can only come from a body that ended the transaction early, and is broken. (A void
 * command's claim, on a database whose transactions nothing commits implicitly, is its whole outcome and inserted
 * {@code COMPLETED}.) ({@code CLAIM} records, visible while in progress, are
 * bound in {@link ClaimExecutor}.)
 */
final class RecordStatements {

  /** A record as read after the claim found the key recorded. */
  record Stored(String state, String fingerprint, String result, String errorType, long expiresAt,
                String resultShape, long createdAt) {

    /** The record as replayed, once it is known to be {@code COMPLETED}. */
    CompletedRecord completed() {
      return new CompletedRecord(fingerprint, result, errorType, resultShape, expiresAt, createdAt);
    }
  }

  private final SqlDialect dialect;
  private final String table;
  private final String claimSql;
  /**
   * The dialect's claim without a probe that fails on a recorded key, where its {@link #claimSql} probes to skip one
   * (H2: see {@link SqlDialect#unguardedClaimSql}); null elsewhere.
   */
  private final String unguardedClaimSql;
  /**
   * How many more claims use the guarded {@link #claimSql} although {@link #unguardedClaimSql} exists: re-armed
   * whenever a claim meets a recorded key, so that a run of claims of recorded keys (uncached replays of a command
   * that claims first, keys completed by another runtime) pays the duplicate-key exception once rather than per call
   * (on H2 its statement rollback also empties the session's query cache), while new keys otherwise pay no probe.
   * Racy on purpose: both statements are correct, this only picks the cheaper one.
   */
  private int guardedClaims;
  /** {@link #guardedClaims} after a claim met a recorded key. */
  static final int GUARDED_CLAIMS = 16;
  /** The claim of a key filed under the day its id carries; null where the layout does not file by key time. */
  private final String keyTimeClaimSql;
  private final String selectSql;
  private final String lookupSql;
  private final String takeOverSql;
  private final String storeResultSql;
  /** Null where the dialect cannot commit with the completion. */
  private final String storeResultAndCommitSql;

  /** @return the record table these statements use */
  String table() {
    return table;
  }

  RecordStatements(SqlDialect dialect, String table) {
    this.dialect = dialect;
    this.table = table;
    this.claimSql = dialect.claimSql(table);
    this.unguardedClaimSql = dialect.unguardedClaimSql(table);
    this.keyTimeClaimSql = dialect.keyTimeClaimSql(table);
    this.selectSql = dialect.selectSql(table);
    this.lookupSql = dialect.lookupSql(table);
    this.takeOverSql = dialect.takeOverSql(table);
    this.storeResultSql = dialect.storeResultSql(table);
    this.storeResultAndCommitSql = dialect.storeResultAndCommitSql(table);
  }

  /**
   * @param state {@link SqlDialect#PENDING}, or {@link SqlDialect#COMPLETED} where the claim is the whole outcome
   *     (see {@link SqlDialect#commitsImplicitly})
   * @return true if this transaction inserted the record, false if the key is recorded already
   */
  boolean claim(Connection connection, CommandSpec<?> spec, String key, String state, String fingerprint, long now,
      long expiresAt) throws SQLException {
    String scope = spec.scope();
    if (keyTimeClaimSql != null && spec.keyTime() != dev.idem.KeyTime.NONE) {
      // The key's own time files it: every retry meets the first record in one day, by the primary key alone.
      long keyMillis = KeyTimes.embeddedMillis(spec, key, now);
      try (PreparedStatement claim = connection.prepareStatement(keyTimeClaimSql)) {
        dialect.bindKeyTimeClaim(claim, scope, key, state, fingerprint, now, expiresAt, keyMillis);
        return dialect.claim(claim);
      }
    }
    String sql = claimSql;
    if (unguardedClaimSql != null) {
      if (guardedClaims > 0) {
        guardedClaims--;
      } else {
        sql = unguardedClaimSql;
      }
    }
    try (PreparedStatement claim = connection.prepareStatement(sql)) {
      // A transactional record's dedup window is its retention: it expires that long after its claim.
      dialect.bindClaim(claim, table, scope, key, state, fingerprint, now, expiresAt, expiresAt - now);
      if (dialect.claimKey(connection, claim, table, scope, key, now,
          SqlDialect.dayBucket(now - (expiresAt - now)))) {
        return true;
      }
      if (unguardedClaimSql != null) {
        guardedClaims = GUARDED_CLAIMS;
      }
      return false;
    }
  }

  /** The latest committed record of the key, or null. */
  Stored read(Connection connection, String scope, String key) throws SQLException {
    return read(connection, selectSql, scope, key);
  }

  /** The same without a lock, for a read outside any transaction ({@link RecordLookup}). */
  Stored lookup(Connection connection, String scope, String key) throws SQLException {
    return read(connection, lookupSql, scope, key);
  }

  private static Stored read(Connection connection, String sql, String scope, String key) throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(sql)) {
      select.setString(1, scope);
      select.setString(2, key);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        return new Stored(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getLong(5),
            rs.getString(6), rs.getLong(7));
      }
    }
  }

  /**
   * Reuses an expired record; guarded by its old expiry so that only one caller wins.
   *
   * @param state {@link SqlDialect#PENDING} for a command, whose outcome completes it; {@link SqlDialect#COMPLETED}
   *     for a batch, whose records are complete once their work commits
   */
  boolean takeOver(Connection connection, String scope, String key, String fingerprint, String state, long now,
      long expiresAt, long oldExpiresAt) throws SQLException {
    try (PreparedStatement update = connection.prepareStatement(takeOverSql)) {
      update.setString(1, fingerprint);
      update.setString(2, state);
      update.setLong(3, now);
      update.setLong(4, expiresAt);
      update.setString(5, scope);
      update.setString(6, key);
      update.setLong(7, oldExpiresAt);
      return update.executeUpdate() == 1;
    }
  }

  /**
   * Completes the PENDING record this transaction claimed with its outcome: a result (JSON, or null for a void
   * command) and its shape, or with {@code errorType} a business failure's arguments.
   *
   * @return false if no PENDING record of the key was there to complete: the body committed idem's transaction
   *     early (an implicit commit) and another caller or a purge got to the record, or the body changed it
   */
  boolean storeResult(Connection connection, String scope, String key, String json, String errorType,
      String resultShape) throws SQLException {
    try (PreparedStatement store = connection.prepareStatement(storeResultSql)) {
      bindResult(store, scope, key, json, errorType, resultShape);
      return store.executeUpdate() == 1;
    }
  }

  /** The parameters of {@link SqlDialect#storeResultSql} and {@link SqlDialect#storeResultAndCommitSql}. */
  private static void bindResult(PreparedStatement store, String scope, String key, String json, String errorType,
      String resultShape) throws SQLException {
    store.setString(1, json);
    store.setString(2, errorType);
    store.setString(3, resultShape);
    store.setString(4, scope);
    store.setString(5, key);
  }

  /** @return whether {@link #storeResultAndCommit} saves the commit's round trip on this dialect */
  boolean commitsWithResult() {
    return storeResultAndCommitSql != null;
  }

  /**
   * {@link #storeResult} and the commit of the transaction idem owns, in one round trip (see
   * {@link SqlDialect#storeResultAndCommitSql}); {@code commit()} afterwards has nothing left to do. Only where
   * {@link #commitsWithResult()}.
   *
   * @return false if no PENDING record of the key was there to complete (nothing committed)
   * @throws IdempotencyCommitUnknownException if the commit was reached and failed: it may have committed or not
   * @throws SQLException if the completion failed (the commit was skipped, nothing committed)
   */
  boolean storeResultAndCommit(Connection connection, String scope, String key, String json, String errorType,
      String resultShape) throws SQLException {
    try (PreparedStatement store = connection.prepareStatement(storeResultAndCommitSql)) {
      bindResult(store, scope, key, json, errorType, resultShape);
      store.execute();
      return true;
    } catch (SQLException e) {
      if (dialect.isNothingToComplete(e)) {
        return false;
      }
      if (dialect.commitReached(connection)) {
        throw new IdempotencyCommitUnknownException(scope, key, e);
      }
      throw e;
    }
  }
}
