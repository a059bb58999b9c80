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
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Issue 22's measurements on PostgreSQL and MariaDB, for both record layouts in one run: the TRANSACTIONAL
 * first-execution rate on an empty table and on a table holding {@code rows} records (filled with SQL in idem's
 * layout: consumer keys, small JSON results, first executions spread over 15 days; see {@link RecordFill}), the bytes
 * per record, and the removal of one day of records: idem's {@code purgeExpired} dropping the day's partition
 * against its bounded {@code DELETE}s of the same rows on one table, with the table's size afterwards and what the
 * removal left behind (PostgreSQL: dead tuples; MariaDB: the size that does not shrink, and data_free). The drop
 * reports the day's records from the database's statistics (it does not read the day), shown beside the records the
 * fill put there.
 *
 * <p>Day partitions are measured with both kinds of keys ({@code idem.bench.retention.keys}): arbitrary keys (random
 * UUIDs, {@link Payments}), whose claim takes the key's lock and probes the dedup window's 15 days, and keys that
 * carry their time (UUIDv7 made one minute ago at most, {@link KeyTimedPayments} with {@code keyTime = UUID_V7}),
 * whose claim is one {@code INSERT … ON CONFLICT} into the key's own day, against a table filled with UUIDv7 keys
 * of their records' times ({@link RecordFill#withTimeKeys()}). One table is measured with arbitrary keys.
 *
 * <p>The empty and the full table's rates are measured in the same minutes: each layout has a second table of the
 * same layout that stays empty (truncated before each of its rounds), and the two are measured in alternating
 * rounds (empty first in even rounds, full first in odd ones); the report gives the medians of the rounds and the
 * median of the rounds' ratios, so that a machine that slows down or speeds up during the run moves both alike.
 *
 * <p>Each layout's tables are dropped when the layout is done, and each database's run ends before the next begins,
 * so that no two full tables ever take disk at once.
 *
 * <pre>
 * mvn -q -Pbench -pl idem-benchmarks -am verify -DskipTests \
 *     -Dbench.mainClass=dev.idem.benchmarks.retention.RetentionBenchmark \
 *     -Didem.bench.retention.rows=50000000          # default; e.g. 2000000 for a quick run
 *     -Didem.bench.retention.seconds=10             # each table's share of a round
 *     -Didem.bench.retention.rounds=5               # rounds of empty / full (odd: the median is one round's)
 *     -Didem.bench.databases=PostgreSQL,MariaDB     # default both
 *     -Didem.bench.retention.keys=arbitrary,time    # default both: one table and day partitions with arbitrary
 *                                                   # keys; day partitions with keys that carry their time
 *     -Didem.bench.retention.mariadbBufferPool=8G   # default: the server's; set for the run and restored
 *     -Didem.bench.retention.report=target/retention.md
 * </pre>
 */
public final class RetentionBenchmark {

  private static final int THREADS = 8;
  private static final int FILL_CONNECTIONS = 2;
  /** Records per fill statement: one transaction, small enough to keep undo and WAL bursts modest. */
  private static final long FILL_CHUNK = 250_000;
  private static final int PURGE_BATCH = 1_000;
  private static final long START = System.nanoTime();

  /** The key kinds {@code idem.bench.retention.keys} names. */
  static final String ARBITRARY_KEYS = "arbitrary";
  static final String TIME_KEYS = "time";

  /**
   * One measured table: its layout and whether its records' and the measured claims' keys carry their time.
   *
   * @param label the report's column
   * @param table the full table's name; the empty one's adds {@code _empty}
   */
  record Variant(String label, RecordLayout layout, boolean timeKeys, String table) {}

  private final IsolatedDatabase database;
  private final RecordTables tables;
  private final RecordFill fill;
  private final List<Variant> variants;
  private final int seconds;
  private final int rounds;
  private final StringBuilder report;

  private RetentionBenchmark(IsolatedDatabase database, RecordTables tables, RecordFill fill, List<Variant> variants,
      int seconds, int rounds, StringBuilder report) {
    this.database = database;
    this.tables = tables;
    this.fill = fill;
    this.variants = variants;
    this.seconds = seconds;
    this.rounds = rounds;
    this.report = report;
  }

  /** The variants of a comma-separated list of key kinds ({@link #ARBITRARY_KEYS}, {@link #TIME_KEYS}). */
  static List<Variant> variants(String keyKinds) {
    List<String> kinds = new ArrayList<>();
    for (String kind : keyKinds.split(",")) {
      String name = kind.strip().toLowerCase(Locale.ROOT);
      if (name.isEmpty()) {
        continue;
      }
      if (!name.equals(ARBITRARY_KEYS) && !name.equals(TIME_KEYS)) {
        throw new IllegalArgumentException("idem.bench.retention.keys takes " + ARBITRARY_KEYS + " and " + TIME_KEYS
            + " (comma-separated), got '" + kind + "'");
      }
      kinds.add(name);
    }
    List<Variant> variants = new ArrayList<>();
    if (kinds.contains(ARBITRARY_KEYS)) {
      variants.add(new Variant("one table", RecordLayout.ONE_TABLE, false, "rec_one"));
      variants.add(new Variant("day partitions, arbitrary keys", RecordLayout.DAY_PARTITIONS, false, "rec_days"));
    }
    if (kinds.contains(TIME_KEYS)) {
      variants.add(new Variant("day partitions, keys carrying their time (UUIDv7)", RecordLayout.DAY_PARTITIONS, true,
          "rec_days_v7"));
    }
    if (variants.isEmpty()) {
      throw new IllegalArgumentException("idem.bench.retention.keys names no key kind: " + ARBITRARY_KEYS + ", "
          + TIME_KEYS + " or both");
    }
    return variants;
  }

  public static void main(String[] args) throws Exception {
    long rows = Long.getLong("idem.bench.retention.rows", 50_000_000L);
    int seconds = Integer.getInteger("idem.bench.retention.seconds", 10);
    int rounds = Integer.getInteger("idem.bench.retention.rounds", 5);
    String bufferPool = System.getProperty("idem.bench.retention.mariadbBufferPool", "").strip();
    if (seconds < 1 || rounds < 1) {
      throw new IllegalArgumentException("idem.bench.retention.seconds and .rounds must be positive, got " + seconds
          + " and " + rounds);
    }
    List<TestDatabase> databases = new ArrayList<>();
    for (String name : System.getProperty("idem.bench.databases", "PostgreSQL,MariaDB").split(",")) {
      if (!name.isBlank()) {
        databases.add(TestDatabase.of(name));
      }
    }
    List<Variant> variants = variants(System.getProperty("idem.bench.retention.keys",
        ARBITRARY_KEYS + "," + TIME_KEYS));
    RecordFill fill = new RecordFill(rows);
    StringBuilder report = new StringBuilder("## Retention at scale\n\n");
    report.append(String.format(Locale.ROOT, "Run of %s UTC on %d cores: %,d records per table over %d days;"
            + " TRANSACTIONAL first executions storing a result, %d threads, in the fill's scope: arbitrary keys are"
            + " random UUIDs (version 4), keys carrying their time UUIDv7s made up to a minute before the claim;"
            + " empty and full table measured in %d alternating rounds of %d s each (after 1 s of warm-up each).%n%n",
        DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").format(Instant.now().atOffset(ZoneOffset.UTC)),
        Runtime.getRuntime().availableProcessors(), fill.rows(), RecordFill.DAYS, THREADS, rounds, seconds));
    for (TestDatabase database : databases) {
      String unreachable = database.unreachableReason();
      if (unreachable != null) {
        report.append("*").append(database.displayName()).append(" left out: ").append(unreachable).append("*\n\n");
        continue;
      }
      try (IsolatedDatabase isolated = IsolatedDatabase.open(database,
              new IsolatedDatabase.Settings("idem_r_", THREADS + 2, THREADS, false));
          RecordTables tables = RecordTables.of(isolated, database == TestDatabase.MARIADB ? bufferPool : "")) {
        new RetentionBenchmark(isolated, tables, fill, variants, seconds, rounds, report).run();
      }
    }
    String markdown = report.toString();
    System.out.println(markdown);
    String file = System.getProperty("idem.bench.retention.report", "");
    if (!file.isEmpty()) {
      Files.writeString(Path.of(file), markdown, StandardCharsets.UTF_8);
    }
  }

  /** What one variant measured. */
  private static final class Layout {
    final Variant variant;
    double[] emptyRates;
    double[] fullRates;
    double[] ratios;
    RecordTables.Sizes filled;
    long removed;
    double removalSeconds;
    RecordTables.Sizes beforeRemoval;
    RecordTables.Sizes afterRemoval;
    double leftover;
    double insertSeconds;
    double indexSeconds;
    double analyzeSeconds;
    double ratesSeconds;
    double totalSeconds;

    Layout(Variant variant) {
      this.variant = variant;
    }
  }

  private void run() throws Exception {
    String server = tables.server();
    String loadBefore = loadAverage();
    progress(server + ": start");
    List<Layout> measured = new ArrayList<>();
    for (Variant variant : variants) {
      measured.add(measure(variant));
    }
    long rows = fill.rows();
    report.append("### ").append(server).append("\n\n").append(tables.settings())
        .append(" Load average before: ").append(loadBefore).append(".\n\n|");
    for (Variant variant : variants) {
      report.append(" | ").append(variant.label());
    }
    report.append(" |\n| ---").append(" | ---:".repeat(variants.size())).append(" |\n");
    row("first executions/s, empty table (median of the rounds)", measured, l -> median(l.emptyRates), "%,.0f");
    row(String.format(Locale.ROOT, "first executions/s at %,d records (median of the rounds)", rows), measured,
        l -> median(l.fullRates), "%,.0f");
    textRow("ratio full / empty, median of the rounds' ratios [lowest, highest] (target for day partitions ≥ 0.9)",
        measured, l -> ratios(l.ratios));
    row("bytes per record: " + tables.dataLabel(), measured, l -> perRecord(l.filled.dataBytes()), "%.0f");
    row("bytes per record: " + tables.indexLabel(), measured, l -> perRecord(l.filled.indexBytes()), "%.0f");
    row("bytes per record: total", measured, l -> perRecord(l.filled.totalBytes()), "%.0f");
    row("records the fill put in the oldest day", measured, l -> fill.perDay(), "%,.0f");
    row("records of the oldest day removed, as the purge reported them (day partitions: the statistics' estimate,"
        + " the day is not read)", measured, l -> l.removed, "%,.0f");
    textRow("removing that day with idem's purgeExpired, seconds", measured, l -> String.format(Locale.ROOT,
        "%.2f (%s)", l.removalSeconds, tables.removalLabel(l.variant.layout())));
    row("table size before removal, MB", measured, l -> l.beforeRemoval.totalBytes() / 1e6, "%,.0f");
    row("table size after removal, MB", measured, l -> l.afterRemoval.totalBytes() / 1e6, "%,.0f");
    if (tables.hasFreeSpace()) {
      row("free space inside the table's files before removal (`data_free`), MB", measured,
          l -> l.beforeRemoval.freeBytes() / 1e6, "%,.0f");
    }
    row(tables.leftoverLabel(), measured, l -> l.leftover, "%,.0f");
    row("fill: records/s (insert only)", measured, l -> rows / l.insertSeconds, "%,.0f");
    textRow("fill, seconds: insert + indexes + analyze", measured, RetentionBenchmark::phases);
    row("whole variant (fill, rounds, removal), seconds", measured, l -> l.totalSeconds, "%,.0f");
    report.append("\nFill: ").append(tables.fillMethod()).append(".");
    Layout one = measured.stream().filter(l -> l.variant.layout() == RecordLayout.ONE_TABLE).findFirst()
        .orElse(null);
    for (Layout days : measured) {
      if (one != null && days != one) {
        report.append(String.format(Locale.ROOT, " Removal, %s: %.0fx faster than one table's bounded DELETEs"
            + " (target ≥ 100x, drop ≤ 1 s).", days.variant.label(), one.removalSeconds / days.removalSeconds));
      }
    }
    report.append(" Load average after: ").append(loadAverage()).append(".\n");
    Layout days = measured.stream().filter(l -> l.variant.layout() == RecordLayout.DAY_PARTITIONS).findFirst()
        .orElseThrow();
    double perRecord = perRecord(days.filled.totalBytes());
    double records = 900_000_000d;
    double daily = 60_000_000d;
    report.append(String.format(Locale.ROOT, "%nCapacity model from these bytes per record (%s), 900 M"
            + " records (60 M a day kept 15 days): disk %.0f GB (%s %.0f GB, %s %.0f GB); daily churn %.0f GB created"
            + " and dropped; 15 + 8 premade = 23 partitions.%n%n", days.variant.label(),
        records * perRecord / 1e9, tables.dataLabel(), records * perRecord(days.filled.dataBytes()) / 1e9,
        tables.indexLabel(), records * perRecord(days.filled.indexBytes()) / 1e9, daily * perRecord / 1e9));
  }

  private double perRecord(long bytes) {
    return (double) bytes / fill.rows();
  }

  private static String ratios(double[] ratios) {
    double[] sorted = ratios.clone();
    Arrays.sort(sorted);
    return String.format(Locale.ROOT, "%.2f [%.2f, %.2f]", median(ratios), sorted[0], sorted[sorted.length - 1]);
  }

  private static String phases(Layout layout) {
    return String.format(Locale.ROOT, "%.0f + %.0f + %.0f", layout.insertSeconds, layout.indexSeconds,
        layout.analyzeSeconds);
  }

  private void row(String what, List<Layout> measured, java.util.function.ToDoubleFunction<Layout> value,
      String format) {
    textRow(what, measured, l -> String.format(Locale.ROOT, format, value.applyAsDouble(l)));
  }

  private void textRow(String what, List<Layout> measured, java.util.function.Function<Layout, String> value) {
    report.append("| ").append(what);
    for (Layout layout : measured) {
      report.append(" | ").append(value.apply(layout));
    }
    report.append(" |\n");
  }

  private IdemRuntime runtime(String table, RecordLayout layout, MutableClock clock) {
    return IdemRuntime.builder().dataSource(database.dataSource()).tableName(table).layout(layout).clock(clock)
        .databaseTime(false).resultCache(false).build();
  }

  private Layout measure(Variant variant) throws Exception {
    long start = System.nanoTime();
    RecordLayout layout = variant.layout();
    String table = variant.table();
    RecordFill records = variant.timeKeys() ? fill.withTimeKeys() : fill;
    Layout result = new Layout(variant);
    String emptyTable = table + "_empty";
    MutableClock clock = new MutableClock(RecordFill.NOW.minus(Duration.ofDays(RecordFill.DAYS)));
    try (IdemRuntime full = runtime(table, layout, clock); IdemRuntime empty = runtime(emptyTable, layout, clock)) {
      full.createSchema();
      empty.createSchema();
      if (layout == RecordLayout.DAY_PARTITIONS) {
        for (int day = 0; day <= RecordFill.DAYS; day += 7) { // the fill's past days, then today's week ahead
          clock.set(RecordFill.NOW.minus(Duration.ofDays(RecordFill.DAYS - day)));
          full.premakePartitions();
          empty.premakePartitions();
        }
        clock.set(RecordFill.NOW);
        full.premakePartitions();
        empty.premakePartitions();
      }
      fill(table, layout, records, result);
      result.filled = tables.sizes(table);
      // The rates run one hour before NOW: the fill's records are then all inside their window and probed.
      clock.set(RecordFill.NOW.minus(Duration.ofHours(1)));
      long rates = System.nanoTime();
      interleavedRates(full, empty, emptyTable, table, variant.timeKeys(), clock, result);
      result.ratesSeconds = (System.nanoTime() - rates) / 1e9;
      tables.analyze(table); // PostgreSQL: the rounds' updates leave dead tuples, which the removal must not count
      result.beforeRemoval = tables.sizes(table);
      // A millisecond before NOW: the first record of the second day expires at NOW exactly, so that the bounded
      // DELETEs remove the oldest day's records and no others, the rows the drop removes.
      clock.set(RecordFill.NOW.minusMillis(1));
      progress(table + ": removing the oldest day (" + tables.removalLabel(layout) + ")");
      long removal = System.nanoTime();
      result.removed = full.purgeExpired(PURGE_BATCH);
      result.removalSeconds = (System.nanoTime() - removal) / 1e9;
      result.afterRemoval = tables.sizes(table);
      result.leftover = tables.leftover(table);
      progress(String.format(Locale.ROOT, "%s: removed the oldest day in %.2f s, reported %,d records (the fill put"
              + " %,d there); table %,.0f MB before, %,.0f MB after; %s: %,.0f", table, result.removalSeconds,
          result.removed, records.perDay(), result.beforeRemoval.totalBytes() / 1e6,
          result.afterRemoval.totalBytes() / 1e6, tables.leftoverLabel(), result.leftover));
    } finally {
      tables.drop(table);
      tables.drop(emptyTable);
    }
    result.totalSeconds = (System.nanoTime() - start) / 1e9;
    progress(String.format(Locale.ROOT, "%s: done in %.0f s (fill %.0f + %.0f + %.0f s, rounds %.0f s, removal"
            + " %.2f s)", table, result.totalSeconds, result.insertSeconds, result.indexSeconds, result.analyzeSeconds,
        result.ratesSeconds, result.removalSeconds));
    return result;
  }

  /**
   * Fills the table with the {@link RecordFill}'s records, statements of {@link #FILL_CHUNK} records taken in order
   * by {@link #FILL_CONNECTIONS} connections, then rebuilds what {@link RecordTables#prepareFill} took away and
   * analyzes the table.
   */
  private void fill(String table, RecordLayout layout, RecordFill fill, Layout result) throws Exception {
    long rows = fill.rows();
    long chunks = (rows + FILL_CHUNK - 1) / FILL_CHUNK;
    long start = System.nanoTime();
    RecordTables.FillFinish finish = tables.prepareFill(table);
    AtomicLong next = new AtomicLong();
    AtomicLong inserted = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(FILL_CONNECTIONS);
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int c = 0; c < FILL_CONNECTIONS; c++) {
        workers.add(pool.submit(() -> {
          try (Connection connection = database.dataSource().getConnection()) {
            for (long chunk = next.getAndIncrement(); chunk < chunks; chunk = next.getAndIncrement()) {
              long first = chunk * FILL_CHUNK;
              long last = Math.min(rows, first + FILL_CHUNK) - 1;
              tables.insert(connection, table, layout, fill, first, last);
              long done = inserted.addAndGet(last - first + 1);
              long tenth = rows / 10;
              if (tenth > 0 && done / tenth != (done - (last - first + 1)) / tenth) {
                progress(String.format(Locale.ROOT, "%s: %,d of %,d records inserted", table, done, rows));
              }
            }
          }
          return null;
        }));
      }
      for (Future<?> worker : workers) {
        worker.get();
      }
    } finally {
      pool.shutdownNow();
    }
    long insertedAt = System.nanoTime();
    finish.run();
    long indexedAt = System.nanoTime();
    tables.analyze(table);
    long analyzedAt = System.nanoTime();
    result.insertSeconds = (insertedAt - start) / 1e9;
    result.indexSeconds = (indexedAt - insertedAt) / 1e9;
    result.analyzeSeconds = (analyzedAt - indexedAt) / 1e9;
    progress(String.format(Locale.ROOT, "%s: filled, %,d records in %.0f s + indexes %.0f s + analyze %.0f s", table,
        rows, result.insertSeconds, result.indexSeconds, result.analyzeSeconds));
  }

  /**
   * {@link #rounds} rounds, each measuring the empty table (truncated first) and the full one for {@link #seconds},
   * in alternating order, after one untimed warm-up of each.
   */
  private void interleavedRates(IdemRuntime full, IdemRuntime empty, String emptyTable, String fullTable,
      boolean timeKeys, MutableClock clock, Layout result) throws Exception {
    result.emptyRates = new double[rounds];
    result.fullRates = new double[rounds];
    result.ratios = new double[rounds];
    tables.truncate(emptyTable);
    rate(empty, 2, timeKeys, clock);
    rate(full, 2, timeKeys, clock);
    for (int round = 0; round < rounds; round++) {
      for (int turn = 0; turn < 2; turn++) {
        boolean emptyTurn = (round % 2 == 0) == (turn == 0);
        if (emptyTurn) {
          tables.truncate(emptyTable);
          result.emptyRates[round] = rate(empty, seconds, timeKeys, clock);
        } else {
          result.fullRates[round] = rate(full, seconds, timeKeys, clock);
        }
      }
      result.ratios[round] = result.fullRates[round] / result.emptyRates[round];
      progress(String.format(Locale.ROOT, "%s: round %d of %d: empty %,.0f/s, full %,.0f/s, ratio %.2f", fullTable,
          round + 1, rounds, result.emptyRates[round], result.fullRates[round], result.ratios[round]));
    }
  }

  /**
   * TRANSACTIONAL first executions storing a result, on {@link #THREADS} threads, each a fresh key in the fill's
   * scope: a random (version 4) UUID, or with {@code timeKeys} a UUIDv7 made up to a minute before the runtime's
   * {@code clock} (a producer's message id, claimed soon after it was made): 1 s of warm-up, then
   * {@code measureSeconds} counted.
   */
  private double rate(IdemRuntime runtime, int measureSeconds, boolean timeKeys, MutableClock clock)
      throws Exception {
    Payments arbitrary = new Payments_Idempotent(
        (messageId, group, amountCents) -> new Payments.Receipt("p-" + messageId, amountCents), runtime);
    KeyTimedPayments timed = new KeyTimedPayments_Idempotent(
        (messageId, group, amountCents) -> new Payments.Receipt("p-" + messageId, amountCents), runtime);
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong done = new AtomicLong();
    CountDownLatch started = new CountDownLatch(THREADS);
    List<Future<?>> workers = new ArrayList<>();
    try {
      for (int t = 0; t < THREADS; t++) {
        workers.add(pool.submit(() -> {
          started.countDown();
          ThreadLocalRandom random = ThreadLocalRandom.current();
          for (long i = 0; !stop.get(); i++) {
            long variant = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
            if (timeKeys) {
              long millis = clock.millis() - random.nextLong(60_000);
              timed.pay(new UUID(millis << 16 | 0x7000L | random.nextLong(0x1000L), variant), RecordFill.GROUP, i);
            } else {
              arbitrary.pay(new UUID((random.nextLong() & ~0xF000L) | 0x4000L, variant), RecordFill.GROUP, i);
            }
            done.incrementAndGet();
          }
          return null;
        }));
      }
      started.await();
      Thread.sleep(1_000); // warm-up: connections busy, plans cached
      long from = done.get();
      long start = System.nanoTime();
      Thread.sleep(measureSeconds * 1_000L);
      long count = done.get() - from;
      double elapsed = (System.nanoTime() - start) / 1e9;
      stop.set(true);
      for (Future<?> worker : workers) {
        worker.get(60, TimeUnit.SECONDS);
      }
      return count / elapsed;
    } finally {
      stop.set(true);
      pool.shutdown();
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int middle = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  }

  private static void progress(String what) {
    System.out.printf("[%5d s, load %s] %s%n", (System.nanoTime() - START) / 1_000_000_000L, loadAverage(), what);
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
