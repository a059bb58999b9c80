package dev.idem.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.faults.FaultContract.Tables;
import dev.idem.runtime.IdemRuntime;
import dev.idem.testing.PrivatePostgres;
import dev.idem.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The real server fault: a storm against a private PostgreSQL that is killed with {@code kill -9} mid-storm and
 * restarted (crash recovery). Callers retry until they succeed; then every key ran exactly once, and no record is
 * left pending.
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
    try (Connection connection = java.sql.DriverManager.getConnection(server.url(), PrivatePostgres.USER, "");
         Statement statement = connection.createStatement()) {
      statement.execute("CREATE TABLE business (idem_key VARCHAR(255) NOT NULL, amount BIGINT NOT NULL,"
          + " execution INT NOT NULL)");
    }
    pool = FaultContract.proxiedPool(TestDatabase.POSTGRESQL, server.url(), PrivatePostgres.USER, "", THREADS);
    direct = FaultContract.proxiedPool(TestDatabase.POSTGRESQL, server.url(), PrivatePostgres.USER, "", 2);
    runtime = IdemRuntime.builder().dataSource(pool).build();
    runtime.createSchema();
    delegate = new RecordingLedger(runtime);
    ledger = new Ledger_Idempotent(delegate, runtime);
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

  @Test
  void aStormSurvivesKillMinusNineAndRestartOfTheServerWithEveryKeyExactlyOnce() throws Exception {
    long seed = System.nanoTime();
    Storm storm = new Storm("crash-", THREADS, KEYS, COPIES, 80);
    AtomicLong downMillis = new AtomicLong();
    AtomicLong attemptsBeforeKill = new AtomicLong();
    storm.run(ledger::post, seed, 100, () -> {
      while (storm.attempts.get() < storm.calls() / 3) {
        Storm.pause(5);
      }
      attemptsBeforeKill.set(storm.attempts.get());
      long killed = System.nanoTime();
      server.kill();
      Storm.pause(300);
      server.restart();
      downMillis.set((System.nanoTime() - killed) / 1_000_000);
    });

    StormContract.assertNoUnexpectedFailures(storm, seed);
    assertEquals(0, storm.gaveUp.get(), "every send succeeded within its retries (seed " + seed + ")");
    Map<String, Integer> rows = Tables.businessRowsByKey(direct);
    Map<String, Integer> rowExecution = Tables.businessExecutionByKey(direct);
    Map<String, String> states = Tables.statesByKey(direct, FaultContract.POST);
    Map<String, String> results = Tables.resultsByKey(direct, FaultContract.POST);
    long doubleExecutions = 0;
    for (String key : storm.allKeys()) {
      if (rows.getOrDefault(key, 0) > 1 || storm.returnedExecutions.get(key).size() > 1) {
        doubleExecutions++;
      }
    }
    long stuck = states.values().stream().filter(state -> !"COMPLETED".equals(state)).count();
    System.out.println("FAULT STORM kill -9 of a private PostgreSQL: calls " + storm.calls() + " ("
        + storm.attempts.get() + " attempts, " + storm.expectedFailures.get() + " failed and retried), killed after "
        + attemptsBeforeKill.get() + " attempts, down and recovering " + downMillis.get() + " ms, faults injected 1,"
        + " double executions " + doubleExecutions + ", stuck records " + stuck + ", seed " + seed);
    assertTrue(storm.expectedFailures.get() > 0, "the crash failed some calls");
    for (String key : storm.allKeys()) {
      assertEquals(1, rows.getOrDefault(key, 0), "business rows of " + key + " (seed " + seed + ")");
      assertEquals("COMPLETED", states.get(key), "record of " + key);
      int stored = StormContract.storedExecution(results.get(key));
      assertEquals(rowExecution.get(key), stored, "the record holds the result of the execution that committed");
      assertEquals(Set.of(stored), storm.returnedExecutions.get(key), "every call got that result");
    }
    assertEquals(KEYS, states.size());
    assertEquals(0, doubleExecutions);
    assertEquals(0, stuck, "no PENDING or IN_PROGRESS record is left");
  }
}
