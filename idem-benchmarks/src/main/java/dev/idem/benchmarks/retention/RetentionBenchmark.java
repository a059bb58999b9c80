package dev.idem.benchmarks.retention;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.RecordLayout;
import dev.idem.testing.IsolatedDatabase;
import dev.idem.testing.MutableClock;
import dev.idem.testing.TestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Issue 22's measurements on PostgreSQL, for both record layouts in one run: the TRANSACTIONAL first-execution rate
 * on the empty table and once it holds {@code rows} records (filled with SQL in idem's layout: consumer-style keys,
 * small JSON results, first executions spread over 15 days), the bytes per record (table and indexes, after
 * {@code VACUUM ANALYZE}: autovacuum is off on the benchmark machine), and the removal of one day of records: idem's
 * {@code purgeExpired} dropping the day's partition against its bounded {@code DELETE}s of the same rows on one
 * table, with each table's size and dead tuples afterwards.
 *
 * <pre>
 * mvn -q -Pbench -pl idem-benchmarks -am verify -DskipTests \
 *     -Dbench.mainClass=dev.idem.benchmarks.retention.RetentionBenchmark \
 *     -Didem.bench.retention.rows=50000000      # default; e.g. 1000000 for a quick run
 *     -Didem.bench.retention.seconds=20         # each rate measurement
 *     -Didem.bench.retention.report=target/retention.md
 * </pre>
 */
public final class RetentionBenchmark {

  private static final Duration DAY = Duration.ofDays(1);
  private static final int DAYS = 15;
  /** Midnight UTC: the fill's days line up with the partitions. */
  private static final Instant NOW = Instant.parse("2030-06-16T00:00:00Z");
  /**
   * Records expire 14 days after their first execution ({@link Payments#pay}'s retention), so that at {@link #NOW}
   * exactly the oldest day expired.
   */
  private static final Duration WINDOW = Duration.ofDays(DAYS - 1);
  private static final int THREADS = 8;


  private final IsolatedDatabase database;
  private final long rows;
  private final int seconds;
  private final StringBuilder report = new StringBuilder();

  private RetentionBenchmark(IsolatedDatabase database, long rows, int seconds) {
    this.database = database;
    this.rows = rows;
    this.seconds = seconds;
  }

  public static void main(String[] args) throws Exception {
    long rows = Long.getLong("idem.bench.retention.rows", 50_000_000L);
    int seconds = Integer.getInteger("idem.bench.retention.seconds", 20);
    String load = loadAverage();
    RetentionBenchmark benchmark;
    try (IsolatedDatabase database = IsolatedDatabase.open(TestDatabase.POSTGRESQL,
        new IsolatedDatabase.Settings("idem_r_", THREADS + 2, THREADS, false))) {
      benchmark = new RetentionBenchmark(database, rows, seconds);
      benchmark.run(load);
    }
    String markdown = benchmark.report.toString();
    System.out.println(markdown);
    String file = System.getProperty("idem.bench.retention.report", "");
    if (!file.isEmpty()) {
      Files.writeString(Path.of(file), markdown, StandardCharsets.UTF_8);
    }
  }

  private void run(String loadBefore) throws Exception {
    report.append("## Retention at scale (PostgreSQL)\n\n")
        .append(String.format(Locale.ROOT, "%,d records over %d days, TRANSACTIONAL first executions storing a"
            + " result on %d threads for %d s per rate; load average before: %s.%n%n", rows, DAYS, THREADS, seconds,
            loadBefore));
    Layout one = measure(RecordLayout.ONE_TABLE, "rec_one");
    Layout days = measure(RecordLayout.DAY_PARTITIONS, "rec_days");
    report.append("| | one table | day partitions |\n| --- | --- | --- |\n");
    row("first executions/s, empty table", one.emptyRate, days.emptyRate, "%,.0f");
    row(String.format(Locale.ROOT, "first executions/s at %,d records", rows), one.fullRate, days.fullRate, "%,.0f");
    row("ratio full / empty (target for day partitions ≥ 0.9)", one.fullRate / one.emptyRate,
        days.fullRate / days.emptyRate, "%.2f");
    row("bytes per record: heap", one.heapBytes, days.heapBytes, "%.0f");
    row("bytes per record: indexes", one.indexBytes, days.indexBytes, "%.0f");
    row("bytes per record: total", one.totalBytes, days.totalBytes, "%.0f");
    row("records of the oldest day removed", one.removed, days.removed, "%,.0f");
    row("removing that day: seconds (bounded DELETEs of 1,000 / DETACH + DROP)", one.removalSeconds,
        days.removalSeconds, "%.2f");
    row("table size before removal, MB", one.mbBefore, days.mbBefore, "%,.0f");
    row("table size after removal, MB", one.mbAfter, days.mbAfter, "%,.0f");
    row("dead tuples after removal", one.deadTuples, days.deadTuples, "%,.0f");
    report.append(String.format(Locale.ROOT, "%nRemoval: day partitions %.0fx faster than bounded DELETEs"
        + " (target ≥ 100x, drop ≤ 1 s). Load average after: %s.%n", one.removalSeconds / days.removalSeconds,
        loadAverage()));
    double total = days.totalBytes;
    double records = 900_000_000d;
    report.append(String.format(Locale.ROOT, "%nCapacity model from the measured bytes per record (day"
            + " partitions), 900 M records (60 M a day kept 15 days): disk %.0f GB (heap %.0f GB, indexes %.0f GB);"
            + " daily churn %.0f GB created and dropped; 15 + 8 premade = 23 partitions; the indexes of one"
            + " day's partition %.1f GB (a claim probes the window's days: their primary keys are what should stay in"
            + " memory).%n",
        records * total / 1e9, records * days.heapBytes / 1e9, records * days.indexBytes / 1e9,
        60_000_000d * total / 1e9, 60_000_000d * days.indexBytes / 1e9));
  }

  private void row(String what, double one, double days, String format) {
    report.append("| ").append(what).append(" | ").append(String.format(Locale.ROOT, format, one)).append(" | ")
        .append(String.format(Locale.ROOT, format, days)).append(" |\n");
  }

  private static final class Layout {
    double emptyRate;
    double fullRate;
    double heapBytes;
    double indexBytes;
    double totalBytes;
    double removed;
    double removalSeconds;
    double mbBefore;
    double mbAfter;
    double deadTuples;
  }

  private Layout measure(RecordLayout layout, String table) throws Exception {
    Layout result = new Layout();
    MutableClock clock = new MutableClock(NOW.minus(Duration.ofDays(DAYS)));
    try (IdemRuntime runtime = IdemRuntime.builder().dataSource(database.dataSource()).tableName(table)
        .layout(layout).clock(clock).databaseTime(false).resultCache(false).build()) {
      runtime.createSchema();
      if (layout == RecordLayout.DAY_PARTITIONS) {
        for (int day = 0; day <= DAYS; day += 7) { // the fill's past days, then today's week ahead
          clock.set(NOW.minus(Duration.ofDays(DAYS - day)));
          runtime.premakePartitions();
        }
        clock.set(NOW);
        runtime.premakePartitions();
      }
      // The rates run one hour before NOW: the fill's records are then all inside their window and probed.
      clock.set(NOW.minus(Duration.ofHours(1)));
      result.emptyRate = rate(runtime, table + "-empty");
      execute("TRUNCATE " + table);
      fill(table, layout);
      execute("VACUUM ANALYZE " + table);
      long[] size = sizes(table);
      result.heapBytes = (double) size[0] / rows;
      result.indexBytes = (double) size[1] / rows;
      result.totalBytes = (double) (size[0] + size[1]) / rows;
      result.fullRate = rate(runtime, table + "-full");
      execute("VACUUM ANALYZE " + table);
      result.mbBefore = (sizes(table)[0] + sizes(table)[1]) / 1e6;
      clock.set(NOW);
      long start = System.nanoTime();
      result.removed = runtime.purgeExpired(1_000);
      result.removalSeconds = (System.nanoTime() - start) / 1e9;
      long[] after = sizes(table);
      result.mbAfter = (after[0] + after[1]) / 1e6;
      result.deadTuples = deadTuples(table);
    }
    return result;
  }

  /** TRANSACTIONAL first executions storing a result, on {@link #THREADS} threads for {@link #seconds}. */
  private double rate(IdemRuntime runtime, String prefix) throws Exception {
    Payments payments = new Payments_Idempotent((id, amount) -> new Payments.Receipt("p-" + id, amount), runtime);
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong done = new AtomicLong();
    CountDownLatch started = new CountDownLatch(THREADS);
    List<Future<?>> workers = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      String thread = prefix + "-" + t + "-";
      workers.add(pool.submit(() -> {
        started.countDown();
        for (long i = 0; !stop.get(); i++) {
          payments.pay(thread + i, i);
          done.incrementAndGet();
        }
        return null;
      }));
    }
    started.await();
    Thread.sleep(2_000); // warm-up
    long from = done.get();
    long start = System.nanoTime();
    Thread.sleep(seconds * 1_000L);
    long count = done.get() - from;
    double elapsed = (System.nanoTime() - start) / 1e9;
    stop.set(true);
    for (Future<?> worker : workers) {
      worker.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    return count / elapsed;
  }

  /**
   * {@link #rows} records in idem's layout, first executions spread evenly over the {@link #DAYS} days before
   * {@link #NOW}, in statements of at most a million rows. Keys as a consumer's ({@code <UUID>|billing}), SHA-256
   * fingerprints, results of about 40 characters of JSON.
   */
  private void fill(String table, RecordLayout layout) throws SQLException {
    long spanMillis = Duration.ofDays(DAYS).toMillis();
    long from = NOW.toEpochMilli() - spanMillis;
    boolean days = layout == RecordLayout.DAY_PARTITIONS;
    String sql = "INSERT INTO " + table + " (scope, idem_key, state, fingerprint, result, result_shape, created_at,"
        + " expires_at" + (days ? ", bucket" : "") + ") SELECT 'payments.order-paid',"
        + " uuid_in(md5(i::text)::cstring)::text || '|billing', 'COMPLETED', encode(sha256(i::text::bytea), 'hex'),"
        + " '{\"paymentId\":\"p-' || i || '\",\"amountCents\":' || (i % 100000) || '}', 'R1', c, c + ?"
        + (days ? ", floor(c / 86400000)::int" : "")
        + " FROM (SELECT i, ? + (i * ?)::bigint AS c FROM generate_series(?::bigint, ?::bigint) AS i) g";
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement insert = connection.prepareStatement(sql)) {
      for (long first = 0; first < rows; first += 1_000_000) {
        insert.setLong(1, WINDOW.toMillis());
        insert.setLong(2, from);
        insert.setDouble(3, (double) spanMillis / rows);
        insert.setLong(4, first);
        insert.setLong(5, Math.min(rows, first + 1_000_000) - 1);
        insert.executeUpdate();
      }
    }
  }

  /** Heap and index bytes of the table, its partitions included. */
  private long[] sizes(String table) throws SQLException {
    String sql = "SELECT coalesce(sum(pg_table_size(relid)), 0), coalesce(sum(pg_indexes_size(relid)), 0)"
        + " FROM (SELECT relid FROM pg_partition_tree(?::regclass) UNION SELECT ?::regclass) t";
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement query = connection.prepareStatement(sql)) {
      query.setString(1, table);
      query.setString(2, table);
      try (ResultSet rs = query.executeQuery()) {
        rs.next();
        return new long[] {rs.getLong(1), rs.getLong(2)};
      }
    }
  }

  private long deadTuples(String table) throws SQLException {
    String sql = "SELECT coalesce(sum(n_dead_tup), 0) FROM pg_stat_user_tables s JOIN (SELECT relid FROM"
        + " pg_partition_tree(?::regclass) UNION SELECT ?::regclass) t ON t.relid = s.relid";
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement query = connection.prepareStatement(sql)) {
      query.setString(1, table);
      query.setString(2, table);
      try (ResultSet rs = query.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private void execute(String sql) throws SQLException {
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  private static String loadAverage() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return fields[0] + " " + fields[1] + " " + fields[2];
    } catch (IOException e) {
      return "unknown";
    }
  }
}
