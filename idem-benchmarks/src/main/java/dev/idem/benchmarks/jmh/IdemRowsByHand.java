package dev.idem.benchmarks.jmh;

import dev.idem.benchmarks.jmh.BenchOrders.PlaceOrder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * A diagnostic for {@link WireProbe} on PostgreSQL: idem's TRANSACTIONAL statements on {@code idem_record} (its
 * PENDING claim, the business write, its completion), sent by hand without idem's code, with the completion in one of
 * several forms. Against idem it tells what idem's code costs; between the forms, what the CTE that checks the row
 * count and the COMMIT carried in the completion's round trip cost or save.
 */
final class IdemRowsByHand {

  private static final String SCOPE = "probe.by.hand";
  private static final String FINGERPRINT = "3b0e8f2d1c4a5b6978e0f1d2c3b4a59687f0e1d2c3b4a5968778695a4b3c2d1e";
  private static final String CLAIM = "INSERT INTO idem_record (scope, idem_key, state, fingerprint, created_at,"
      + " expires_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (scope, idem_key) DO NOTHING";
  private static final String UPDATE = "UPDATE idem_record SET state = 'COMPLETED', result = ?, error_type = ?,"
      + " result_shape = ? WHERE scope = ? AND idem_key = ? AND state = 'PENDING'";
  private static final String CTE = "WITH completed AS (" + UPDATE + " RETURNING 1) SELECT 1 / COUNT(*) FROM completed";

  enum Completion {
    /** idem's form: the CTE and COMMIT in one statement, one round trip. */
    CTE_AND_COMMIT("CteAndCommit", CTE + "; COMMIT", false),
    /** The CTE, then {@code commit()}: one round trip more. */
    CTE_THEN_COMMIT("CteThenCommit", CTE, true),
    /** A plain UPDATE whose row count the client checks, then {@code commit()}: (2c)'s shape on idem_record. */
    UPDATE_THEN_COMMIT("UpdateThenCommit", UPDATE, true),
    /** A plain UPDATE and COMMIT in one statement (no row-count check before the commit: not a safe form). */
    UPDATE_AND_COMMIT("UpdateAndCommit", UPDATE + "; COMMIT", false);

    final String label;
    final String sql;
    final boolean commitsAfter;

    Completion(String label, String sql, boolean commitsAfter) {
      this.label = label;
      this.sql = sql;
      this.commitsAfter = commitsAfter;
    }
  }

  private IdemRowsByHand() {}

  /**
   * idem's PENDING claim of {@code key}, bound as the runtime binds it (scope, key, state, fingerprint, created_at,
   * expires_at a day later); fails unless it inserted the row.
   *
   * @param claimSql the dialect's claim INSERT into the record table
   */
  static void claimPending(Connection connection, String claimSql, String scope, String key, String fingerprint)
      throws SQLException {
    long now = System.currentTimeMillis();
    try (PreparedStatement claim = connection.prepareStatement(claimSql)) {
      claim.setString(1, scope);
      claim.setString(2, key);
      claim.setString(3, "PENDING");
      claim.setString(4, fingerprint);
      claim.setLong(5, now);
      claim.setLong(6, now + 86_400_000L);
      if (claim.executeUpdate() != 1) {
        throw new IllegalStateException("duplicate " + key);
      }
    }
  }

  static void placeOrder(DataSource pool, Completion completion, String key, PlaceOrder order) throws SQLException {
    OwnTransaction.run(pool, connection -> {
      claimPending(connection, CLAIM, SCOPE, key, FINGERPRINT);
      OrderRows.insert(connection, order);
      try (PreparedStatement complete = connection.prepareStatement(completion.sql)) {
        complete.setString(1, "{\"orderId\":" + order.orderId() + ",\"totalCents\":" + order.totalCents() + "}");
        complete.setString(2, null);
        complete.setString(3, "c6f1e2d3a4b5c6d7");
        complete.setString(4, SCOPE);
        complete.setString(5, key);
        if (completion == Completion.CTE_THEN_COMMIT) {
          try (ResultSet row = complete.executeQuery()) {
            row.next();
          }
        } else if (completion == Completion.UPDATE_THEN_COMMIT) {
          if (complete.executeUpdate() != 1) {
            throw new IllegalStateException("nothing to complete for " + key);
          }
        } else {
          complete.execute();
        }
      }
    });
  }
}
