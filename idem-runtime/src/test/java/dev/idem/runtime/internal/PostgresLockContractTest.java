package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.LockLease;
import dev.idem.runtime.LockProvider;
import dev.idem.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class PostgresLockContractTest extends LockContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }

  /**
   * A release commits without waiting for its WAL flush (see {@code SqlDialect.lockReleaseFrom}), for its own
   * transaction only: the connection, which a pool lends to the application next, keeps {@code synchronous_commit}.
   * Right after a durable commit the server has flushed everything it inserted; right after a release it has not,
   * until its WAL writer runs (every 200 ms): of 20 releases, at least a quarter are caught before that.
   */
  @Test
  void aReleaseCommitsWithoutWaitingForTheFlushAndLeavesTheSessionsSettingAlone()
      throws SQLException, InterruptedException {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(database.url());
    config.setUsername(database.user());
    config.setPassword(database.password());
    config.setMaximumPoolSize(1); // the provider's session is the one this test reads next
    try (HikariDataSource one = new HikariDataSource(config);
        IdemRuntime runtime = IdemRuntime.builder().dataSource(one).build()) {
      LockProvider provider = runtime.lockProvider();
      int unflushedAfterRelease = 0;
      int unflushedAfterAcquire = 0;
      for (int i = 0; i < 20; i++) {
        LockLease lease = provider.tryAcquire("unflushed-release", Duration.ofMinutes(1)).orElseThrow();
        unflushedAfterAcquire += walNotYetFlushed(one) ? 1 : 0;
        assertTrue(provider.release(lease, i % 2 == 0 ? Duration.ZERO : Duration.ofMillis(1)));
        unflushedAfterRelease += walNotYetFlushed(one) ? 1 : 0;
        // A release with lockAtLeastFor of 1 ms holds the lease until a millisecond after it was taken, by the
        // database's clock: the next acquisition must not come within that millisecond.
        Thread.sleep(2);
        assertEquals("on", synchronousCommit(one), "the session's setting after release " + i);
      }
      assertTrue(unflushedAfterRelease >= 5, unflushedAfterRelease + " of 20 releases left WAL unflushed; "
          + unflushedAfterAcquire + " of 20 acquisitions did");
    }
  }

  private static boolean walNotYetFlushed(DataSource dataSource) throws SQLException {
    return query(dataSource, "SELECT pg_current_wal_flush_lsn() < pg_current_wal_insert_lsn()").equals("t");
  }

  private static String synchronousCommit(DataSource dataSource) throws SQLException {
    return query(dataSource, "SHOW synchronous_commit");
  }

  private static String query(DataSource dataSource, String sql) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery(sql)) {
      row.next();
      return row.getString(1);
    }
  }
}
