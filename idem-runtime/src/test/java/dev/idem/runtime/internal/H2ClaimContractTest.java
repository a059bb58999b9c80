package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.Dialect;
import dev.idem.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class H2ClaimContractTest extends ClaimContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }

  /**
   * What H2's CLAIM insert relies on ({@code SqlDialect.H2Dialect.leaseClaimSql}, a plain INSERT with no NOT EXISTS
   * probe): H2's primary-key check fails at once with 23505 on a committed record whose row lock an open transaction
   * holds, whether that transaction updated the record (a lease extension, a completion) or deleted it (a release),
   * so that {@code claim} reports the key recorded without waiting. The claimant's lock timeout is a minute, far past
   * what the test waits, so a claim that waited for the lock would show as a timeout here, not as a lock error.
   */
  @Test
  void h2sPrimaryKeyCheckFailsAtOnceOnARecordWhoseRowAnOwnerHoldsLocked() throws Exception {
    SqlDialect sql = SqlDialect.of(Dialect.H2);
    assertTrue(sql.leaseClaimSkipsRecordedKeys());
    String insert = sql.leaseClaimSql("idem_record");
    assertFalse(insert.contains("EXISTS"), insert);
    database.execute("INSERT INTO idem_record (scope, idem_key, state, fingerprint, owner_token, lease_until,"
        + " created_at, expires_at) VALUES ('Gateway.charge', 'h2-locked', 'IN_PROGRESS', 'f', 'live-owner',"
        + " 2000, 1000, 90000)");
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (Connection claimant = DriverManager.getConnection(database.url(), database.user(), database.password())) {
      try (Statement set = claimant.createStatement()) {
        set.execute("SET LOCK_TIMEOUT 60000");
      }
      for (String ownersStatement : List.of(
          "UPDATE idem_record SET lease_until = 3000, expires_at = 91000 WHERE idem_key = 'h2-locked'",
          "UPDATE idem_record SET state = 'COMPLETED', result = '1', owner_token = NULL, lease_until = NULL"
              + " WHERE idem_key = 'h2-locked'",
          "DELETE FROM idem_record WHERE idem_key = 'h2-locked'")) {
        try (Connection owner = database.dataSource().getConnection()) {
          owner.setAutoCommit(false);
          try (Statement lock = owner.createStatement()) {
            assertEquals(1, lock.executeUpdate(ownersStatement));
          }
          Future<Boolean> claimed = pool.submit(() -> {
            try (PreparedStatement claim = claimant.prepareStatement(insert)) {
              sql.bindLeaseClaim(claim, "idem_record", "Gateway.charge", "h2-locked", "f", "claimant", 5000, 1000,
                  95000);
              return sql.claim(claim);
            }
          });
          try {
            assertFalse(claimed.get(10, TimeUnit.SECONDS), "inserted past the owner's record: " + ownersStatement);
          } catch (TimeoutException e) {
            claimed.cancel(true);
            throw new AssertionError("the claim waited for the owner's row lock: " + ownersStatement, e);
          } finally {
            owner.rollback();
          }
        }
      }
      try (Statement read = claimant.createStatement();
          ResultSet rs = read.executeQuery("SELECT owner_token, lease_until FROM idem_record"
              + " WHERE idem_key = 'h2-locked'")) {
        assertTrue(rs.next());
        assertEquals("live-owner", rs.getString(1));
        assertEquals(2000, rs.getLong(2));
        assertFalse(rs.next());
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
