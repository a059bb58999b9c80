package dev.idem.runtime.internal;

import dev.idem.runtime.IdemAdmin;
import dev.idem.runtime.IdempotencyStats;
import dev.idem.runtime.IdempotencyStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Counts the table for {@link IdemAdmin#stats(int)}: three reads in auto-commit mode on a connection of its own
 * (the counts per scope and state, the claims whose lease ended, the records whose outcome is unknown), never
 * inside a transaction of the runtime. Reads only; each list is read up to a limit.
 */
final class RecordStats {

  private final TransactionManager transactions;
  private final DatabaseClock clock;
  private final String table;
  private final String statsSql;
  private final String expiredLeasesSql;
  private final String outcomeUnknownSql;

  RecordStats(TransactionManager transactions, SqlDialect dialect, String table, DatabaseClock clock) {
    this.transactions = transactions;
    this.clock = clock;
    this.table = table;
    this.statsSql = dialect.statsSql(table);
    this.expiredLeasesSql = dialect.expiredLeasesSql(table);
    this.outcomeUnknownSql = dialect.outcomeUnknownSql(table);
  }

  IdempotencyStats stats(int limit) {
    if (transactions.inProgress() || transactions.applicationsInProgress()) {
      throw new IllegalStateException("stats() runs on a connection of its own: call it outside"
          + " runtime.inTransaction(...), the application's transaction and commands' bodies");
    }
    try (Connection connection = transactions.newConnection()) {
      if (!connection.getAutoCommit()) {
        connection.setAutoCommit(true);
      }
      long now = clock.millis(connection);
      List<IdempotencyStats.Group> groups = new ArrayList<>();
      Instant oldest = null;
      Instant newest = null;
      try (PreparedStatement select = connection.prepareStatement(statsSql)) {
        select.setLong(1, now);
        try (ResultSet rows = select.executeQuery()) {
          while (rows.next()) {
            IdempotencyStats.Group group = new IdempotencyStats.Group(rows.getString(1), rows.getString(2),
                rows.getLong(3), Instant.ofEpochMilli(rows.getLong(4)), Instant.ofEpochMilli(rows.getLong(5)),
                rows.getLong(6));
            groups.add(group);
            oldest = oldest == null || group.oldest().isBefore(oldest) ? group.oldest() : oldest;
            newest = newest == null || group.newest().isAfter(newest) ? group.newest() : newest;
          }
        }
      }
      List<IdempotencyStats.Key> expiredLeases = new ArrayList<>();
      boolean truncated = keys(connection, expiredLeasesSql, now, limit, expiredLeases, false);
      List<IdempotencyStats.Key> unknown = new ArrayList<>();
      truncated |= keys(connection, outcomeUnknownSql, null, limit, unknown, true);
      return new IdempotencyStats(table, Instant.ofEpochMilli(now), groups, oldest, newest, expiredLeases, unknown,
          truncated);
    } catch (SQLException e) {
      throw new IdempotencyStoreException("Counting the records of " + table + " failed", e);
    }
  }

  /** Reads up to {@code limit} keys; whether there were more. */
  private static boolean keys(Connection connection, String sql, Long now, int limit,
      List<IdempotencyStats.Key> into, boolean unknown) throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(sql)) {
      if (now != null) {
        select.setLong(1, now);
      }
      select.setMaxRows(limit == Integer.MAX_VALUE ? 0 : limit + 1);
      try (ResultSet rows = select.executeQuery()) {
        while (rows.next()) {
          if (into.size() == limit) {
            return true;
          }
          long createdAt = rows.getLong(5);
          long leaseUntil = rows.getLong(4);
          boolean leased = !rows.wasNull() && !unknown;
          into.add(new IdempotencyStats.Key(rows.getString(1), rows.getString(2), rows.getString(3),
              Instant.ofEpochMilli(createdAt), leased ? Instant.ofEpochMilli(leaseUntil) : null,
              unknown ? OutcomeNote.parse(rows.getString(6), createdAt).problem() : null));
        }
      }
    }
    return false;
  }
}
