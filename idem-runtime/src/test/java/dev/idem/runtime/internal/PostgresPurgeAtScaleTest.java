package dev.idem.runtime.internal;

import dev.idem.runtime.Dialect;
import dev.idem.runtime.IdemRuntime;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.testing.IsolatedDatabase;
import dev.idem.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Retention at scale: a million expired records are purged in bounded batches through the index on expires_at,
 * while commands keep running with short latencies. Tagged "scale" (it takes some seconds) but part of the normal
 * build.
 */
@Tag("scale")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresPurgeAtScaleTest {

  private static final int EXPIRED = 1_000_000;
  private static final int LIVE = 10_000;
  private static final int BATCH_SIZE = 5_000;
  private static final Duration MAX_COMMAND_LATENCY = Duration.ofSeconds(2);

  private static final CommandSpec<Void> ON_ORDER_PAID =
      CommandSpec.builder("payments.order-paid", ResultType.VOID)
          .retention(Duration.parse("P15D"))
          .keyParts("msg.messageId", "consumerGroup")
          .payload("msg")
          .build();

  private IsolatedDatabase database;
  private IdemRuntime runtime;

  @BeforeAll
  void fill() {
    database = IsolatedDatabase.open(TestDatabase.POSTGRESQL);
    runtime = IdemRuntime.builder().dataSource(database.dataSource()).build();
    runtime.createSchema();
    long now = System.currentTimeMillis();
    long day = Duration.ofDays(1).toMillis();
    // generate_series fills the table in a few seconds; keys look like real ones (UUID message id + group).
    database.execute(
        "CREATE TABLE effects (k VARCHAR(255) NOT NULL)",
        "INSERT INTO idem_record (scope, idem_key, state, fingerprint, created_at, expires_at)"
            + " SELECT 'payments.order-paid', md5(g::text)::uuid || '|billing', 'COMPLETED',"
            + " md5(g::text) || md5((-g)::text), " + (now - 16 * day) + " + g, " + (now - day) + " + g"
            + " FROM generate_series(1, " + EXPIRED + ") g",
        "INSERT INTO idem_record (scope, idem_key, state, fingerprint, created_at, expires_at)"
            + " SELECT 'payments.order-paid', 'live-' || g || '|billing', 'COMPLETED',"
            + " md5(g::text) || md5((-g)::text), " + now + ", " + (now + 15 * day)
            + " FROM generate_series(1, " + LIVE + ") g",
        "ANALYZE idem_record");
  }

  @AfterAll
  void drop() {
    if (database != null) {
      database.close();
    }
  }

  @Test
  void thePurgeStatementWalksTheExpiryIndex() throws SQLException {
    String purge = SqlDialect.POSTGRESQL.purgeSql("idem_record");
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement()) {
      // Both the custom plan (values known) and the generic plan a prepared statement ends up with.
      for (String planCacheMode : List.of("force_custom_plan", "force_generic_plan")) {
        statement.execute("SET plan_cache_mode = " + planCacheMode);
        statement.execute("PREPARE purge(bigint, int) AS " + purge.replaceFirst("\\?", "\\$1").replaceFirst("\\?", "\\$2"));
        String plan = explain(statement, "EXPLAIN EXECUTE purge(" + System.currentTimeMillis() + ", " + BATCH_SIZE + ")");
        statement.execute("DEALLOCATE purge");
        assertTrue(plan.contains("Index Scan using idem_record_expires_idx"), planCacheMode + ":\n" + plan);
        assertTrue(plan.contains("Tid Scan"), planCacheMode + ":\n" + plan);
      }
      statement.execute("RESET plan_cache_mode");
    }
  }

  @Test
  void aMillionExpiredRecordsArePurgedInBatchesWhileCommandsKeepSucceeding() throws Exception {
    AtomicBoolean purging = new AtomicBoolean(true);
    ExecutorService commands = Executors.newFixedThreadPool(2);
    List<Future<long[]>> results = new ArrayList<>();
    for (int thread = 0; thread < 2; thread++) {
      String prefix = "during-" + thread + "-";
      results.add(commands.submit(() -> {
        long executed = 0;
        long slowestNanos = 0;
        while (purging.get()) {
          String id = prefix + executed;
          long start = System.nanoTime();
          IdemEngine.of(runtime).execute(ON_ORDER_PAID, new Object[] {id, "billing"}, new Object[] {id}, () -> {
            try (PreparedStatement insert = runtime.currentConnection()
                .prepareStatement("INSERT INTO effects (k) VALUES (?)")) {
              insert.setString(1, id);
              insert.executeUpdate();
            }
            return null;
          });
          slowestNanos = Math.max(slowestNanos, System.nanoTime() - start);
          executed++;
        }
        return new long[] {executed, slowestNanos};
      }));
    }
    long start = System.nanoTime();
    long purged;
    try {
      purged = runtime.purgeExpired(BATCH_SIZE);
    } finally {
      purging.set(false);
      commands.shutdown();
    }
    long purgeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    long executed = 0;
    long slowestNanos = 0;
    for (Future<long[]> result : results) {
      long[] outcome = result.get(30, TimeUnit.SECONDS); // throws if any command failed
      executed += outcome[0];
      slowestNanos = Math.max(slowestNanos, outcome[1]);
    }
    System.out.printf("Purged %,d expired records in %,d ms (%,d per second, batches of %,d); %,d commands ran"
            + " meanwhile, the slowest took %,d ms%n", purged, purgeMillis, purged * 1000 / Math.max(1, purgeMillis),
        BATCH_SIZE, executed, TimeUnit.NANOSECONDS.toMillis(slowestNanos));

    assertEquals(EXPIRED, purged);
    assertEquals(LIVE + executed, count("SELECT COUNT(*) FROM idem_record"), "live records remain");
    assertEquals(executed, count("SELECT COUNT(*) FROM effects"));
    assertTrue(executed > 0, "commands ran during the purge");
    assertTrue(slowestNanos < MAX_COMMAND_LATENCY.toNanos(),
        "slowest command during the purge: " + TimeUnit.NANOSECONDS.toMillis(slowestNanos) + " ms");
  }

  private static String explain(Statement statement, String sql) throws SQLException {
    StringBuilder plan = new StringBuilder();
    try (ResultSet rows = statement.executeQuery(sql)) {
      while (rows.next()) {
        plan.append(rows.getString(1)).append('\n');
      }
    }
    return plan.toString();
  }

  private long count(String sql) throws SQLException {
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    }
  }
}
