package dev.idem.faults;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.runtime.IdemRuntime;
import dev.idem.testing.PrivatePostgres;
import dev.idem.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The real server fault: a storm against a private PostgreSQL that is killed with {@code kill -9} mid-storm and
 * restarted (crash recovery). Callers retry until they succeed; then every key ran exactly once (TRANSACTIONAL), or
 * never twice unless its caller was told it may (CLAIM), and no record is stuck.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PrivatePostgresCrashTest {

  static final int THREADS = 16;
  static final int KEYS = 200;
  static final int COPIES = 3;

  private PrivatePostgres server;
  private HikariDataSource pool;
  private HikariDataSource direct;
  private IdemRuntime runtime;
  private RecordingLedger delegate;
  private Ledger ledger;

  @BeforeAll
  void startServer() throws SQLException {
    server = PrivatePostgres.start();
    execute("CREATE TABLE business (idem_key VARCHAR(255) NOT NULL, amount BIGINT NOT NULL, execution INT NOT NULL)");
    pool = FaultContract.boundedPool(TestDatabase.POSTGRESQL, server.url(), PrivatePostgres.USER, "", THREADS);
    direct = FaultContract.boundedPool(TestDatabase.POSTGRESQL, server.url(), PrivatePostgres.USER, "", 2);
    // The storms test the claim path across the crash: with two retries per key the commands would read first after
    // a dozen calls, and the storm could finish before the kill lands (then no call fails and nothing was tested).
    runtime = IdemRuntime.builder().dataSource(pool).adaptiveLookupFirst(false).build();
    runtime.createSchema();
    delegate = new RecordingLedger(runtime);
    ledger = new Ledger_Idempotent(delegate, runtime);
  }

  @BeforeEach
  void clear() throws SQLException {
    execute("DELETE FROM business", "DELETE FROM idem_record");
    runtime.clearResultCache();
    delegate.reset();
  }

  @AfterAll
  void stopServer() {
    if (pool != null) {
      pool.close();
      direct.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private void execute(String... sql) throws SQLException {
    try (Connection connection = DriverManager.getConnection(server.url(), PrivatePostgres.USER, "");
         Statement statement = connection.createStatement()) {
      for (String s : sql) {
        statement.execute(s);
      }
    }
  }

  /** Kills the server once a tenth of the sends were attempted (the rest still running), and restarts it. */
  private Runnable killMinusNineAndRestart(Storm storm, AtomicLong downMillis) {
    return () -> {
      while (storm.attempts.get() < storm.calls() / 10) {
        Storm.pause(5);
      }
      long killed = System.nanoTime();
      server.kill();
      Storm.pause(300);
      server.restart();
      downMillis.set((System.nanoTime() - killed) / 1_000_000);
    };
  }

  @Test
  void aTransactionalStormSurvivesKillMinusNineAndRestartWithEveryKeyExactlyOnce() throws Exception {
    long seed = System.nanoTime();
    Storm storm = new Storm("crash-tx-", THREADS, KEYS, COPIES, 80);
    AtomicLong downMillis = new AtomicLong();
    storm.run(ledger::post, seed, 100, killMinusNineAndRestart(storm, downMillis));
    assertTrue(storm.expectedFailures.get() > 0, "the crash failed some calls");
    StormChecks.transactional("across kill -9 of a private PostgreSQL (down " + downMillis.get() + " ms)", storm,
        seed, 1, direct);
  }

  @Test
  void aClaimStormSurvivesKillMinusNineAndRestartWithNoRecordStuck() throws Exception {
    long seed = System.nanoTime();
    Storm storm = new Storm("crash-claim-", THREADS, KEYS, COPIES, 300);
    AtomicLong downMillis = new AtomicLong();
    storm.run(ledger::chargeWithinStorm, seed, 100, killMinusNineAndRestart(storm, downMillis));
    assertTrue(storm.expectedFailures.get() > 0, "the crash failed some calls");
    StormChecks.claim("across kill -9 of a private PostgreSQL (down " + downMillis.get() + " ms)", storm, seed, 1,
        ledger, delegate, direct);
  }
}
