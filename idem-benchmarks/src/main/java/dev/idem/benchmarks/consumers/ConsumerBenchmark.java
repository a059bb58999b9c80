package dev.idem.benchmarks.consumers;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.benchmarks.consumers.PaymentConsumers.Payment;
import dev.idem.benchmarks.jmh.PairedBenchmark;
import dev.idem.benchmarks.jmh.WireCount;
import dev.idem.runtime.IdemRuntime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.camel.processor.idempotent.jdbc.JdbcMessageIdRepository;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Consumes the same stream of messages (1% duplicates mixed in) with each dedup variant, one after the other in one
 * run, on PostgreSQL and on MariaDB, and prints messages per second with two ratios: to the database's own 100-row
 * batch INSERT of the same business rows without any dedup (the ceiling), and to Camel's
 * {@code JdbcMessageIdRepository} per message (a framework baseline). Every variant does the same business write,
 * one row per processed message, in the same transaction as its dedup record. Right after the ceiling runs the
 * unique-key floor ({@link #uniqueKeyFloorBatches}): the least any dedup that trusts a unique constraint writes, so
 * that the report shows which part of idem's gap to the ceiling every such dedup pays and which part is idem's own;
 * and the same floor writing rows shaped like idem_record, which splits idem's own part into what its record's width
 * costs the database and what its code and statements cost. Last, the same-guarantee floor ({@link GuaranteeFloor}):
 * hand-written JDBC that gives a batch what idem's batch handler gives it (fingerprints checked, expired records
 * processed anew, a pooled connection and a transaction per batch), the batch target's verdict.
 *
 * <p>Every baseline gets its best setup: batched inserts are rewritten into multi-row statements by the driver
 * ({@code reWriteBatchedInserts} on PostgreSQL, {@code useBulkStmts} on MariaDB), and Camel's table has the unique
 * key its lookup needs. Before each measured run the tables hold the warm-up's rows and are analyzed, so that the
 * planner sees a non-empty table; the harness prints Camel's lookup plan and, on PostgreSQL, counts its sequential
 * and index scans during the run, and the server's autovacuum setting.
 *
 * <p>{@code mvn -q -Pbench -pl idem-benchmarks -am verify -DskipTests}; system properties:
 * {@code idem.bench.messages} (distinct messages, default 200000), {@code idem.bench.databases} (default
 * {@code PostgreSQL,MariaDB}), {@code idem.bench.variants} (only the variants whose name contains it, with the
 * baseline, the floor and Camel), {@code idem.bench.camel} ({@code false} skips Camel), {@code idem.bench.interleave}
 * (that many interleaved pairs of blocks of {@code idem.bench.block} messages, batch size 100 and the floor against
 * the baseline, and batch size 100 interleaved directly against the same-guarantee floor ({@link GuaranteeFloor},
 * checked by {@link GuaranteeFloorCheck} before anything is measured), the target's only verdict, and against the
 * record-shaped floor as information (the sequential runs and the ratios to the baseline are information too); see
 * {@link #interleaved}, {@link #uniqueKeyFloor} and {@link #againstFloor}; 0 by default here, the report run in the
 * pom sets it), {@code idem.bench.mariadbClaim} (the same-guarantee floor's claim on MariaDB: {@code RETURNING},
 * the default, or {@code READ_FIRST}),
 * {@code idem.bench.consumerReport} (a Markdown file the results are also written to). Works in a schema (database)
 * of its own, dropped at the end.
 */
public final class ConsumerBenchmark {

  private static final int WARM_UP_MESSAGES = 5_000;
  private static final double DUPLICATE_RATE = 0.01;
  private static final String GROUP = "billing";
  private static final String BASELINE = "baseline: plain 100-row batch INSERT, no dedup";
  private static final String FLOOR =
      "floor: message ids into a primary-key table + the business rows, 100 per batch, one commit";
  private static final String SHAPED_FLOOR = "floor, record-shaped: the same, the message ids as rows shaped like"
      + " idem_record (scope, key, state, fingerprint, times; its expiry index)";
  private static final String GUARANTEE_FLOOR = "floor, same guarantees: hand-written JDBC giving idem's batch"
      + " guarantees (payload fingerprints, claim, the recorded keys' fingerprint and expiry read, connection and"
      + " transaction per batch)";
  /** The scope and key idem's batch handler records for a message (see {@link PaymentConsumers#onPayments}). */
  private static final String BATCH_SCOPE = "bench.payments";
  private static final String CAMEL = "Camel JdbcMessageIdRepository, per message";
  private static final String BATCH_HANDLER = "idem batch handler, batch size ";
  private static final String BATCH_100 = BATCH_HANDLER + 100;
  private static final String CAMEL_LOOKUP =
      "SELECT COUNT(*) FROM CAMEL_MESSAGEPROCESSED WHERE processorName = 'billing' AND messageId = 'm-1'";

  /** One way to consume a list of deliveries. */
  private interface Variant {
    void consume(List<Payment> deliveries) throws SQLException;
  }

  /** A server to run on. */
  private enum Server {
    POSTGRESQL("PostgreSQL", "jdbc:postgresql://127.0.0.1:5432/test", "postgres", "reWriteBatchedInserts=true"),
    MARIADB("MariaDB", "jdbc:mariadb://127.0.0.1:3306/test", "root", "useBulkStmts=true");

    final String title;
    final String adminUrl;
    final String user;
    final String batchOption;

    Server(String title, String adminUrl, String user, String batchOption) {
      this.title = title;
      this.adminUrl = adminUrl;
      this.user = user;
      this.batchOption = batchOption;
    }

    String urlOf(String database) {
      if (this == POSTGRESQL) {
        // The application name finds this run's server processes (interleaved mode: their CPU time).
        return adminUrl + "?currentSchema=" + database + "&ApplicationName=" + database + "&" + batchOption;
      }
      return adminUrl.substring(0, adminUrl.lastIndexOf('/') + 1) + database + "?" + batchOption;
    }

    String create(String database) {
      return this == POSTGRESQL ? "CREATE SCHEMA " + database : "CREATE DATABASE " + database;
    }

    String drop(String database) {
      return this == POSTGRESQL ? "DROP SCHEMA " + database + " CASCADE" : "DROP DATABASE " + database;
    }
  }

  public static void main(String[] args) throws Exception {
    int messages = Integer.getInteger("idem.bench.messages", 200_000);
    StringBuilder report = new StringBuilder();
    for (String name : System.getProperty("idem.bench.databases", "PostgreSQL,MariaDB").split(",")) {
      Server server = Server.valueOf(name.trim().toUpperCase(Locale.ROOT));
      String database = "idem_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
      admin(server, server.create(database));
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(server.urlOf(database));
      config.setUsername(server.user);
      config.setMaximumPoolSize(4);
      try (HikariDataSource dataSource = new HikariDataSource(config)) {
        report.append(new ConsumerBenchmark(server, dataSource).run(messages));
      } finally {
        admin(server, server.drop(database));
      }
    }
    String file = System.getProperty("idem.bench.consumerReport", "");
    if (!file.isEmpty()) {
      writeReport(Path.of(file), report.toString());
    }
  }

  private final Server server;
  private final HikariDataSource dataSource;
  private final PaymentConsumers idem;
  private final TransactionTemplate transactions;
  private final JdbcTemplate jdbc;
  private final JdbcMessageIdRepository camel;
  /** The batch target's floor: idem's guarantees by hand ({@link GuaranteeFloor}). */
  private final GuaranteeFloor guaranteeFloor;
  /** What {@link GuaranteeFloorCheck} checked before the measurements. */
  private String checked = "";

  /** MariaDB's claim in the same-guarantee floor: {@code idem.bench.mariadbClaim}, RETURNING (default) or READ_FIRST. */
  private static final GuaranteeFloor.MariaDbClaim MARIADB_CLAIM = GuaranteeFloor.MariaDbClaim.valueOf(
      System.getProperty("idem.bench.mariadbClaim", "RETURNING").trim().toUpperCase(Locale.ROOT));

  private GuaranteeFloor guaranteeFloorOn(javax.sql.DataSource pool) {
    return new GuaranteeFloor(pool, server == Server.POSTGRESQL, MARIADB_CLAIM, "guarantee_records", BATCH_SCOPE,
        RETENTION_MILLIS, System::currentTimeMillis);
  }

  /** Over another pool of the same database, for {@link #roundTripsPer100}: the floor's statements only. */
  private ConsumerBenchmark(Server server, HikariDataSource dataSource, PaymentConsumers idem) {
    this.server = server;
    this.dataSource = dataSource;
    this.idem = idem;
    this.guaranteeFloor = guaranteeFloorOn(dataSource);
    this.transactions = null;
    this.jdbc = null;
    this.camel = null;
  }

  private ConsumerBenchmark(Server server, HikariDataSource dataSource) throws Exception {
    this.server = server;
    this.dataSource = dataSource;
    IdemRuntime runtime = IdemRuntime.builder().dataSource(dataSource).build();
    runtime.createSchema();
    this.idem = new PaymentConsumers_Idempotent(new EffectWriter(runtime), runtime);
    execute("CREATE TABLE effects (message_id VARCHAR(64) NOT NULL, order_id BIGINT NOT NULL,"
            + " amount_cents BIGINT NOT NULL)",
        // The unique-key floor's key table: what any dedup that trusts a unique constraint must write per message.
        "CREATE TABLE dedup_keys (consumer_group VARCHAR(64) NOT NULL, message_id VARCHAR(64) NOT NULL,"
            + " PRIMARY KEY (consumer_group, message_id))",
        // Camel's own table, plus the unique key that makes it safe under concurrency (and gives its
        // SELECT COUNT(*) an index to use).
        "CREATE TABLE CAMEL_MESSAGEPROCESSED (processorName VARCHAR(255), messageId VARCHAR(100),"
            + " createdAt TIMESTAMP NULL, CONSTRAINT camel_messageprocessed_uk UNIQUE (processorName, messageId))");
    // The record-shaped floor's key table: idem_record's own columns, key and expiry index, without idem.
    execute(server == Server.POSTGRESQL
        ? "CREATE TABLE dedup_records (LIKE idem_record INCLUDING ALL)"
        : "CREATE TABLE dedup_records LIKE idem_record");
    // The same-guarantee floor's records: a table of idem_record's shape of their own.
    execute(server == Server.POSTGRESQL
        ? "CREATE TABLE guarantee_records (LIKE idem_record INCLUDING ALL)"
        : "CREATE TABLE guarantee_records LIKE idem_record");
    this.guaranteeFloor = guaranteeFloorOn(dataSource);
    String check = GuaranteeFloorCheck.run(dataSource, server == Server.POSTGRESQL, MARIADB_CLAIM,
        "guarantee_records", idem, "idem_record", BATCH_SCOPE);
    this.checked = check;
    this.transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
    this.jdbc = new JdbcTemplate(dataSource);
    this.camel = new JdbcMessageIdRepository(dataSource, transactions, GROUP);
    camel.setCreateTableIfNotExists(false);
    camel.start();
  }

  private String run(int messages) throws Exception {
    Map<String, Variant> variants = new LinkedHashMap<>();
    // The ceiling first, then what any unique-key dedup pays at best, then the framework baseline: every other
    // figure is compared with the ceiling and Camel, idem's batch size 100 also with the floor.
    variants.put(BASELINE, deliveries -> plainBatchInsert(deliveries, 100));
    variants.put(FLOOR, deliveries -> uniqueKeyFloorBatches(deliveries, 100, false));
    variants.put(SHAPED_FLOOR, deliveries -> uniqueKeyFloorBatches(deliveries, 100, true));
    variants.put(GUARANTEE_FLOOR, deliveries -> guaranteeFloorBatches(deliveries, 100));
    variants.put(CAMEL, this::camelPerMessage);
    variants.put("idem per-message handler", deliveries -> deliveries.forEach(p -> idem.onPayment(p, GROUP)));
    for (int size : new int[] {1, 10, 100, 500}) {
      variants.put(BATCH_HANDLER + size, deliveries -> inBatches(deliveries, size));
    }

    List<Payment> deliveries = deliveries("m", messages, new Random(42));
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, "%n### Consumers on %s%n%n%,d deliveries (%,d distinct messages, %,d"
            + " duplicates), one business row per processed message, single consumer thread; %s.%n%n",
        server.title, deliveries.size(), messages, deliveries.size() - messages, settings()));
    out.append(checked).append(".\n\n");
    out.append("| variant | messages/s | seconds | vs batch INSERT | vs Camel |\n|---|---:|---:|---:|---:|\n");
    System.out.print(out);

    String only = System.getProperty("idem.bench.variants", "");
    boolean withCamel = Boolean.parseBoolean(System.getProperty("idem.bench.camel", "true"));
    double baselineRate = 0;
    double camelRate = 0;
    double floorRate = Double.NaN;
    double shapedFloorRate = Double.NaN;
    double guaranteeFloorRate = Double.NaN;
    double batch100Rate = Double.NaN;
    for (Map.Entry<String, Variant> variant : variants.entrySet()) {
      String name = variant.getKey();
      if (!only.isEmpty() && !name.contains(only) && !name.equals(BASELINE) && !name.equals(FLOOR)
          && !name.equals(SHAPED_FLOOR) && !name.equals(GUARANTEE_FLOOR) && !name.equals(CAMEL)) {
        continue;
      }
      if (name.equals(CAMEL) && !withCamel) {
        continue;
      }
      clear();
      // The warm-up's rows stay: the measured run starts from analyzed, non-empty tables, as in production.
      variant.getValue().consume(deliveries("warm-up", WARM_UP_MESSAGES, new Random(7)));
      analyze();
      long effectsBefore = count("SELECT COUNT(*) FROM effects");
      long keysBefore = count("SELECT COUNT(*) FROM dedup_keys");
      long recordsBefore = count("SELECT COUNT(*) FROM dedup_records");
      long guaranteedBefore = count("SELECT COUNT(*) FROM guarantee_records");
      ScanCounts scansBefore = camelScans();
      long start = System.nanoTime();
      variant.getValue().consume(deliveries);
      double seconds = (System.nanoTime() - start) / 1e9;
      long effects = count("SELECT COUNT(*) FROM effects") - effectsBefore;
      // The baseline and the floor do not learn which deliveries are redeliveries: they write a row for each.
      boolean writesEveryDelivery = name.equals(BASELINE) || name.equals(FLOOR) || name.equals(SHAPED_FLOOR);
      long expected = writesEveryDelivery ? deliveries.size() : messages;
      if (effects != expected) {
        throw new IllegalStateException(name + " wrote " + effects + " business rows, not " + expected);
      }
      long keys = count("SELECT COUNT(*) FROM dedup_keys") - keysBefore
          + count("SELECT COUNT(*) FROM dedup_records") - recordsBefore
          + count("SELECT COUNT(*) FROM guarantee_records") - guaranteedBefore;
      if ((name.equals(FLOOR) || name.equals(SHAPED_FLOOR) || name.equals(GUARANTEE_FLOOR)) && keys != messages) {
        // Its unique key must have turned the redeliveries away, or it measured less than a dedup writes.
        throw new IllegalStateException(name + " kept " + keys + " message ids, not " + messages);
      }
      double rate = deliveries.size() / seconds;
      if (name.equals(BASELINE)) {
        baselineRate = rate;
      } else if (name.equals(FLOOR)) {
        floorRate = rate;
      } else if (name.equals(SHAPED_FLOOR)) {
        shapedFloorRate = rate;
      } else if (name.equals(GUARANTEE_FLOOR)) {
        guaranteeFloorRate = rate;
      } else if (name.equals(CAMEL)) {
        camelRate = rate;
      } else if (name.equals(BATCH_100)) {
        batch100Rate = rate;
      }
      String row = String.format(Locale.ROOT, "| %s | %,.0f | %.1f | %.2fx | %s |%n", name, rate, seconds,
          rate / baselineRate, camelRate == 0 ? "-" : String.format(Locale.ROOT, "%.1fx", rate / camelRate));
      out.append(row);
      System.out.print(row);
      if (name.equals(CAMEL)) {
        String plan = camelPlan(scansBefore);
        out.append(plan);
        System.out.print(plan);
      }
    }
    camel.stop();
    int pairs = Integer.getInteger("idem.bench.interleave", 0);
    AgainstFloor overGuaranteeFloor = null;
    if (pairs > 0) {
      String interleaved = interleaved(pairs) + uniqueKeyFloor(pairs, false) + uniqueKeyFloor(pairs, true);
      out.append(interleaved);
      System.out.print(interleaved);
      overGuaranteeFloor = againstFloor(pairs, true);
      out.append(overGuaranteeFloor.text());
      System.out.print(overGuaranteeFloor.text());
      AgainstFloor overShapedFloor = againstFloor(pairs, false);
      out.append(overShapedFloor.text());
      System.out.print(overShapedFloor.text());
    }
    if (!Double.isNaN(batch100Rate) && !Double.isNaN(guaranteeFloorRate)) {
      String target = floorTarget(overGuaranteeFloor == null ? null : overGuaranteeFloor.ratios(),
          batch100Rate / guaranteeFloorRate, batch100Rate / baselineRate);
      out.append(target);
      System.out.print(target);
    }
    if (!Double.isNaN(batch100Rate) && !Double.isNaN(floorRate)) {
      // The two factors multiply to the target's ratio: the floor's is any unique-key dedup's, the other idem's own.
      String split = String.format(Locale.ROOT, "%nSequential runs (information): against the unique-key floor on"
              + " %s, the batch handler at batch size 100 reaches %.2fx the floor's rate (what idem costs beyond the"
              + " unique key), and the floor %.2fx the"
              + " plain 100-row batch INSERT (the least any dedup that writes a unique key per message costs).%n",
          server.title, batch100Rate / floorRate, floorRate / baselineRate);
      out.append(split);
      System.out.print(split);
    }
    if (!Double.isNaN(batch100Rate) && !Double.isNaN(floorRate) && !Double.isNaN(shapedFloorRate)) {
      // idem's own share once more, split into what its record's rows cost the database and what the rest costs.
      String shape = String.format(Locale.ROOT, "%nidem's share split on %s (sequential runs, information): the"
              + " record-shaped floor reaches %.2fx the"
              + " floor's rate (what writing idem_record's rows instead of bare ids costs the database), and the batch"
              + " handler %.2fx the record-shaped floor's (idem's code and statements: fingerprints, RETURNING or the"
              + " per-row update counts, the read of recorded keys, the transaction's control statements).%n",
          server.title, shapedFloorRate / floorRate, batch100Rate / shapedFloorRate);
      out.append(shape);
      System.out.print(shape);
    }
    return out.toString();
  }

  /**
   * The batch handler at batch size 100 against the baseline in alternating short blocks of fresh messages (the
   * order flips every pair, so that a drifting load favours neither), on warm tables: the median of the per-pair
   * ratios and their spread mean more on a shared machine than one long run of each. Also the consumer thread's
   * CPU time and allocated bytes per 100 deliveries of each; the bytes do not depend on the machine's load.
   */
  private String interleaved(int pairs) throws SQLException {
    int block = Integer.getInteger("idem.bench.block", 2_000);
    // The HotSpot interface: allocated bytes per thread, which load on the machine does not change.
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long self = Thread.currentThread().getId();
    clear();
    plainBatchInsert(deliveries("warm-up-b", WARM_UP_MESSAGES, new Random(7)), 100);
    inBatches(deliveries("warm-up-i", WARM_UP_MESSAGES, new Random(8)), 100);
    analyze();
    double[] ratios = new double[pairs];
    long baselineCpu = 0;
    long idemCpu = 0;
    long baselineBytes = 0;
    long idemBytes = 0;
    long baselineServerTicks = 0;
    long idemServerTicks = 0;
    long baselineDeliveries = 0;
    long idemDeliveries = 0;
    Random random = new Random(11);
    for (int pair = 0; pair < pairs; pair++) {
      List<Payment> forBaseline = deliveries("b" + pair, block, random);
      List<Payment> forIdem = deliveries("i" + pair, block, random);
      double baselineSeconds = 0;
      double idemSeconds = 0;
      for (int turn = 0; turn < 2; turn++) {
        boolean baselineTurn = (turn == 0) == (pair % 2 == 0);
        long cpu = threads.getCurrentThreadCpuTime();
        long bytes = threads.getThreadAllocatedBytes(self);
        long ticks = serverCpuTicks();
        long start = System.nanoTime();
        if (baselineTurn) {
          plainBatchInsert(forBaseline, 100);
        } else {
          inBatches(forIdem, 100);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        cpu = threads.getCurrentThreadCpuTime() - cpu;
        bytes = threads.getThreadAllocatedBytes(self) - bytes;
        ticks = serverCpuTicks() - ticks;
        if (baselineTurn) {
          baselineSeconds = seconds;
          baselineCpu += cpu;
          baselineBytes += bytes;
          baselineServerTicks += ticks;
          baselineDeliveries += forBaseline.size();
        } else {
          idemSeconds = seconds;
          idemCpu += cpu;
          idemBytes += bytes;
          idemServerTicks += ticks;
          idemDeliveries += forIdem.size();
        }
      }
      ratios[pair] = (forIdem.size() / idemSeconds) / (forBaseline.size() / baselineSeconds);
    }
    double[] sorted = ratios.clone();
    java.util.Arrays.sort(sorted);
    return String.format(Locale.ROOT, "%nInterleaved: %d pairs of %,d-message blocks, batch size 100 against the"
            + " baseline: median ratio %.2fx (quartiles %.2fx..%.2fx, range %.2fx..%.2fx); consumer thread CPU per"
            + " 100 deliveries: baseline %.0f µs, idem %.0f µs; allocated per 100 deliveries: baseline %,.0f bytes,"
            + " idem %,.0f bytes%s.%n", pairs, block, sorted[pairs / 2],
        sorted[pairs / 4], sorted[(3 * pairs) / 4], sorted[0], sorted[pairs - 1],
        baselineCpu / 1e3 / (baselineDeliveries / 100.0), idemCpu / 1e3 / (idemDeliveries / 100.0),
        baselineBytes / (baselineDeliveries / 100.0), idemBytes / (idemDeliveries / 100.0),
        server != Server.POSTGRESQL ? "" : String.format(Locale.ROOT, "; server backends' CPU per 100 deliveries"
            + " (/proc, 10 ms ticks): baseline %.0f µs, idem %.0f µs", baselineServerTicks * 1e4
            / (baselineDeliveries / 100.0), idemServerTicks * 1e4 / (idemDeliveries / 100.0)));
  }

  /** Issue #26: the batch path must reach this share of its same-guarantee floor's rate. */
  static final double FLOOR_TARGET = 0.95;

  /**
   * The verdict of the batch path against its same-guarantee floor ({@link GuaranteeFloor}: idem's batch guarantees
   * by hand, a pooled connection and a transaction per batch of 100), judged by the interleaved pairs when they ran,
   * else by the one sequential run of each; the ratio to the plain batch INSERT beside it, as information. The
   * record-shaped floor, which gives fewer guarantees, is no longer the verdict (its pairs are printed as
   * information).
   */
  private String floorTarget(double[] interleavedRatios, double sequentialRatio, double overBaseline) {
    String measured;
    double judged;
    boolean withinError = false;
    if (interleavedRatios != null) {
      judged = PairedBenchmark.median(interleavedRatios);
      double[] interval = PairedBenchmark.bootstrapMedianInterval(interleavedRatios);
      withinError = interval[0] < FLOOR_TARGET && interval[1] >= FLOOR_TARGET;
      measured = String.format(Locale.ROOT, "%.2fx, median of %d pairs interleaved directly against the floor [95%%"
          + " bootstrap interval %.2f–%.2f]; the sequential runs, information only, %.2fx", judged,
          interleavedRatios.length, interval[0], interval[1], sequentialRatio);
    } else {
      judged = sequentialRatio;
      measured = String.format(Locale.ROOT, "%.2fx, the sequential runs (no interleaved pairs in this run)", judged);
    }
    String verdict = judged >= FLOOR_TARGET ? (withinError ? "met (within error)" : "**met**")
        : (withinError ? "missed (within error)" : "**missed**");
    return String.format(Locale.ROOT, "%nTarget: the batch handler at batch size 100 reaches ≥ %.2f× its"
        + " same-guarantee floor (hand-written JDBC with idem's batch guarantees: each payload's fingerprint, every key"
        + " claimed by the unique key, the recorded keys' fingerprint and expiry read (a reused id refused, an expired"
        + " record processed anew), records and business rows in one transaction on a pooled connection per batch of"
        + " 100) on %s: %s, %s. Information: %.2fx the plain 100-row batch INSERT, which dedups nothing.%n",
        FLOOR_TARGET, server.title, measured, verdict, overBaseline);
  }

  /** The target's verdict pairs: each pair's ratio (idem's rate over the floor's) and their report. */
  private record AgainstFloor(double[] ratios, String text) {}

  /**
   * The batch handler at batch size 100 interleaved directly against a floor: with {@code guarantee}, the target's
   * verdict, the same-guarantee floor ({@link #guaranteeFloorBatches}); else, as information, the record-shaped
   * floor ({@link #uniqueKeyFloorBatches} with idem_record's rows: one connection with auto-commit off for the whole
   * block, no fingerprint check, no expiry, no learning which messages were new); never computed from two ratios to
   * the baseline. Each
   * pair runs one block of fresh messages through each, the order flipping every pair so that a drifting load
   * favours neither; the pair's ratio is idem's rate over the floor's in that pair. Both tables get a warm-up block
   * and fresh statistics first, so that both start from the same state. Beside the ratios: the consumer thread's
   * CPU time and allocated bytes and the server's CPU time ({@link #serverTicks}) per 100 deliveries of each side,
   * which the machine's load moves far less than the rates, the round trips per 100 deliveries of each
   * ({@link #roundTripsPer100}), and the machine's load average before and after, since a shared machine's load
   * moves the rates.
   */
  private AgainstFloor againstFloor(int pairs, boolean guarantee) throws SQLException {
    int block = Integer.getInteger("idem.bench.block", 2_000);
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long self = Thread.currentThread().getId();
    String p = guarantee ? "q" : "g"; // message ids of each run's own
    Variant floor = guarantee ? deliveries -> guaranteeFloorBatches(deliveries, 100)
        : deliveries -> uniqueKeyFloorBatches(deliveries, 100, true);
    floor.consume(deliveries("warm-up-" + p + "f", block, new Random(19)));
    inBatches(deliveries("warm-up-" + p + "i", block, new Random(19)), 100);
    analyze();
    String loadBefore = loadAverage();
    double[] ratios = new double[pairs];
    long[] cpu = new long[2];
    long[] bytes = new long[2];
    long[] ticks = new long[2];
    long[] delivered = new long[2];
    Random random = new Random(17);
    for (int pair = 0; pair < pairs; pair++) {
      List<Payment> forFloor = deliveries(p + "f" + pair, block, random);
      List<Payment> forIdem = deliveries(p + "i" + pair, block, random);
      double[] seconds = new double[2]; // [0] the floor, [1] idem
      for (int turn = 0; turn < 2; turn++) {
        int side = (turn == 0) == (pair % 2 == 0) ? 0 : 1;
        long cpuBefore = threads.getCurrentThreadCpuTime();
        long bytesBefore = threads.getThreadAllocatedBytes(self);
        long ticksBefore = serverTicks();
        long start = System.nanoTime();
        if (side == 0) {
          floor.consume(forFloor);
        } else {
          inBatches(forIdem, 100);
        }
        seconds[side] = (System.nanoTime() - start) / 1e9;
        cpu[side] += threads.getCurrentThreadCpuTime() - cpuBefore;
        bytes[side] += threads.getThreadAllocatedBytes(self) - bytesBefore;
        ticks[side] += serverTicks() - ticksBefore;
        delivered[side] += side == 0 ? forFloor.size() : forIdem.size();
      }
      ratios[pair] = (forIdem.size() / seconds[1]) / (forFloor.size() / seconds[0]);
    }
    String loadAfter = loadAverage();
    double[] sorted = ratios.clone();
    java.util.Arrays.sort(sorted);
    double[] roundTrips = roundTripsPer100(block, guarantee);
    String text = String.format(Locale.ROOT, "%n%s: %d pairs of %,d-message blocks, batch size 100"
            + " interleaved directly against the %s (order flipping every pair): per-pair ratios"
            + " median %.2fx (quartiles %.2fx..%.2fx, range %.2fx..%.2fx); consumer thread CPU per 100 deliveries:"
            + " floor %.0f µs, idem %.0f µs; allocated per 100 deliveries: floor %,.0f bytes, idem %,.0f bytes;"
            + " server CPU per 100 deliveries (/proc, 10 ms ticks; %s): floor %.0f µs, idem %.0f µs;"
            + " round trips per 100 deliveries: %s; load average before %s, after %s.%n",
        guarantee ? "The target's pairs" : "Against the record-shaped floor (information, not the verdict: fewer"
            + " guarantees)", pairs, block, guarantee ? "same-guarantee floor" : "record-shaped floor",
        sorted[pairs / 2], sorted[pairs / 4], sorted[(3 * pairs) / 4], sorted[0], sorted[pairs - 1],
        cpu[0] / 1e3 / (delivered[0] / 100.0), cpu[1] / 1e3 / (delivered[1] / 100.0),
        bytes[0] / (delivered[0] / 100.0), bytes[1] / (delivered[1] / 100.0),
        server == Server.POSTGRESQL ? "the run's backends" : "the whole mariadbd process",
        ticks[0] * 1e4 / (delivered[0] / 100.0), ticks[1] * 1e4 / (delivered[1] / 100.0),
        roundTrips == null ? "not counted" : String.format(Locale.ROOT, "floor %.2f, idem %.2f", roundTrips[0],
            roundTrips[1]), loadBefore, loadAfter);
    return new AgainstFloor(ratios, text);
  }

  /**
   * Round trips per 100 deliveries of one block through a floor (the same-guarantee floor with {@code guarantee},
   * else the record-shaped floor) and through idem's batch handler, counted on the wire: a pool of one connection
   * of its own goes through {@link WireCount}'s counting socket. The record-shaped floor keeps one connection and
   * its statements for the block, as in the pairs; idem and the same-guarantee floor take a connection from the pool
   * per batch, as a consumer does. Null where the counting socket cannot be used.
   */
  private double[] roundTripsPer100(int block, boolean guarantee) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(dataSource.getJdbcUrl() + "&socketFactory=" + WireCount.SOCKET_FACTORY);
    config.setUsername(server.user);
    config.setMaximumPoolSize(1);
    try (HikariDataSource counted = new HikariDataSource(config)) {
      IdemRuntime runtime = IdemRuntime.builder().dataSource(counted).build();
      PaymentConsumers idemCounted = new PaymentConsumers_Idempotent(new EffectWriter(runtime), runtime);
      ConsumerBenchmark floorCounted = new ConsumerBenchmark(server, counted, this.idem);
      String p = guarantee ? "wq" : "wf";
      Variant floor = guarantee ? deliveries -> floorCounted.guaranteeFloorBatches(deliveries, 100)
          : deliveries -> floorCounted.uniqueKeyFloorBatches(deliveries, 100, true);
      List<Payment> forFloor = deliveries(p, block, new Random(23));
      List<Payment> forIdem = deliveries(p + "i", block, new Random(23));
      // Once each unrecorded, so that the connection's session setup and statement caches are not counted.
      floor.consume(deliveries(p + "0", 200, new Random(29)));
      for (int from = 0; from < 200; from += 100) {
        idemCounted.onPayments(deliveries(p + "i0", 200, new Random(29)).subList(from, from + 100), GROUP);
      }
      WireCount.start();
      floor.consume(forFloor);
      long floorTrips = WireCount.stop().roundTrips();
      WireCount.start();
      for (int from = 0; from < forIdem.size(); from += 100) {
        idemCounted.onPayments(forIdem.subList(from, Math.min(forIdem.size(), from + 100)), GROUP);
      }
      long idemTrips = WireCount.stop().roundTrips();
      return new double[] {floorTrips / (forFloor.size() / 100.0), idemTrips / (forIdem.size() / 100.0)};
    } catch (SQLException | RuntimeException e) {
      System.err.println("Round trips not counted: " + e);
      return null;
    }
  }

  /** The machine's 1, 5 and 15 minute load averages, or "unknown" off Linux. */
  private static String loadAverage() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return fields[0] + " " + fields[1] + " " + fields[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  /**
   * How much of the gap to the baseline any unique-key dedup pays, measured as {@link #interleaved} measures idem:
   * alternating blocks of the baseline and of the floor ({@link #uniqueKeyFloorBatches}, batches of 100), so that the
   * main table's one sequential run of the floor has an interleaved figure beside it.
   */
  private String uniqueKeyFloor(int pairs, boolean recordShaped) throws SQLException {
    int block = Integer.getInteger("idem.bench.block", 2_000);
    String prefix = recordShaped ? "s" : "f";
    uniqueKeyFloorBatches(deliveries("warm-up-" + prefix, WARM_UP_MESSAGES, new Random(9)), 100, recordShaped);
    analyze();
    double[] ratios = new double[pairs];
    Random random = new Random(13);
    for (int pair = 0; pair < pairs; pair++) {
      List<Payment> forBaseline = deliveries(prefix + "b" + pair, block, random);
      List<Payment> forFloor = deliveries(prefix + "f" + pair, block, random);
      double baselineSeconds = 0;
      double floorSeconds = 0;
      for (int turn = 0; turn < 2; turn++) {
        boolean baselineTurn = (turn == 0) == (pair % 2 == 0);
        long start = System.nanoTime();
        if (baselineTurn) {
          plainBatchInsert(forBaseline, 100);
          baselineSeconds = (System.nanoTime() - start) / 1e9;
        } else {
          uniqueKeyFloorBatches(forFloor, 100, recordShaped);
          floorSeconds = (System.nanoTime() - start) / 1e9;
        }
      }
      ratios[pair] = (forFloor.size() / floorSeconds) / (forBaseline.size() / baselineSeconds);
    }
    double[] sorted = ratios.clone();
    java.util.Arrays.sort(sorted);
    return String.format(Locale.ROOT, "%n%s: %d pairs of %,d-message blocks, batch size 100 against the"
            + " baseline: median ratio %.2fx (quartiles %.2fx..%.2fx): the message ids written into %s with the"
            + " business rows, one commit per batch, nothing else.%n",
        recordShaped ? "Record-shaped floor" : "Unique-key floor", pairs, block,
        sorted[pairs / 2], sorted[pairs / 4], sorted[(3 * pairs) / 4], recordShaped
            ? "rows shaped like idem_record (its columns, primary key and expiry index)"
            : "a (group, message id) primary-key table");
  }

  /**
   * The unique-key floor: per batch of {@code size}, the message ids into a table whose primary key is the (group,
   * message id) pair ({@code ON CONFLICT DO NOTHING} / {@code INSERT IGNORE}, a JDBC batch the driver rewrites as the
   * baseline's is) and the business rows, one commit. It keeps no state, fingerprint, expiry or index for purging,
   * and it does not even learn which messages were new (it writes every business row, redeliveries included): an
   * upper bound for a dedup whose final authority is the database's unique constraint, not a usable dedup. With
   * {@code recordShaped}, the same statements write rows shaped like idem_record into a copy of its table (same
   * columns, primary key and expiry index): the scope, the key as idem composes it, a fingerprint's 64 hex digits,
   * the creation and expiry times.
   */
  private void uniqueKeyFloorBatches(List<Payment> deliveries, int size, boolean recordShaped) throws SQLException {
    String into = recordShaped
        ? "dedup_records (scope, idem_key, state, fingerprint, created_at, expires_at) VALUES (?, ?, 'COMPLETED', ?, ?, ?)"
        : "dedup_keys (consumer_group, message_id) VALUES (?, ?)";
    String claim = server == Server.POSTGRESQL
        ? "INSERT INTO " + into + " ON CONFLICT DO NOTHING"
        : "INSERT IGNORE INTO " + into;
    try (Connection connection = dataSource.getConnection();
        PreparedStatement keys = connection.prepareStatement(claim);
        PreparedStatement insert = connection.prepareStatement(EffectWriter.INSERT)) {
      connection.setAutoCommit(false);
      for (int from = 0; from < deliveries.size(); from += size) {
        for (Payment payment : deliveries.subList(from, Math.min(deliveries.size(), from + size))) {
          if (recordShaped) {
            // As idem records a batch's message: its scope, the key parts joined, a SHA-256 hex, its times.
            long now = System.currentTimeMillis();
            keys.setString(1, BATCH_SCOPE);
            keys.setString(2, payment.messageId() + "|" + GROUP);
            keys.setString(3, sha256Hex(payment.messageId()));
            keys.setLong(4, now);
            keys.setLong(5, now + RETENTION_MILLIS);
          } else {
            keys.setString(1, GROUP);
            keys.setString(2, payment.messageId());
          }
          keys.addBatch();
          EffectWriter.bind(insert, payment);
          insert.addBatch();
        }
        keys.executeBatch();
        insert.executeBatch();
        connection.commit();
      }
      connection.setAutoCommit(true);
    }
  }

  /**
   * PostgreSQL: the CPU time (user + system, in clock ticks) of this run's backend processes, found by the
   * application name its connections carry, from /proc on this machine; 0 elsewhere.
   */
  private long serverCpuTicks() throws SQLException {
    if (server != Server.POSTGRESQL) {
      return 0;
    }
    long ticks = 0;
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement(
            "SELECT pid FROM pg_stat_activity WHERE application_name = current_setting('application_name')");
        ResultSet pids = query.executeQuery()) {
      while (pids.next()) {
        try {
          String stat = Files.readString(Path.of("/proc/" + pids.getInt(1) + "/stat"));
          String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime
        } catch (IOException | RuntimeException e) {
          return 0; // not on the server's machine
        }
      }
    }
    return ticks;
  }

  /**
   * The database server's CPU time in clock ticks, from /proc on this machine, or 0 where it cannot be read: on
   * PostgreSQL this run's backends ({@link #serverCpuTicks}); on MariaDB, which runs a thread per connection in one
   * process, the whole mariadbd process (found by its pid file), so its background threads (InnoDB's flushing of
   * the run's writes) count too, and the run must be the server's only client.
   */
  private String mariaDbPid;

  private long serverTicks() throws SQLException {
    if (server == Server.POSTGRESQL) {
      return serverCpuTicks();
    }
    try {
      if (mariaDbPid == null) {
        mariaDbPid = Files.readString(Path.of(text("SELECT @@pid_file"))).trim();
      }
      String stat = Files.readString(Path.of("/proc/" + mariaDbPid + "/stat"));
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime
    } catch (IOException | RuntimeException e) {
      return 0; // not on the server's machine
    }
  }

  /**
   * The same-guarantee floor ({@link GuaranteeFloor}): per batch of {@code size}, a pooled connection, a transaction,
   * the fingerprints, the claim, the recorded keys' check, the business rows of the new messages, one commit.
   */
  private void guaranteeFloorBatches(List<Payment> deliveries, int size) throws SQLException {
    for (int from = 0; from < deliveries.size(); from += size) {
      guaranteeFloor.consume(deliveries.subList(from, Math.min(deliveries.size(), from + size)), GROUP,
          ConsumerBenchmark::writeEffects);
    }
  }

  /** The business write of a batch, as {@link EffectWriter#onPayments} does it inside idem. */
  static void writeEffects(Connection connection, List<Payment> batch) throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement(EffectWriter.INSERT)) {
      for (Payment payment : batch) {
        EffectWriter.bind(insert, payment);
        insert.addBatch();
      }
      insert.executeBatch();
    }
  }

  /** The ceiling: the same business rows, 100 per JDBC batch and transaction, nothing else. */
  private void plainBatchInsert(List<Payment> deliveries, int size) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement insert = connection.prepareStatement(EffectWriter.INSERT)) {
      connection.setAutoCommit(false);
      for (int from = 0; from < deliveries.size(); from += size) {
        for (Payment payment : deliveries.subList(from, Math.min(deliveries.size(), from + size))) {
          EffectWriter.bind(insert, payment);
          insert.addBatch();
        }
        insert.executeBatch();
        connection.commit();
      }
      connection.setAutoCommit(true);
    }
  }

  private void camelPerMessage(List<Payment> deliveries) {
    for (Payment payment : deliveries) {
      transactions.executeWithoutResult(status -> {
        // add() joins this transaction: same data source, PROPAGATION_REQUIRED.
        if (camel.add(payment.messageId())) {
          jdbc.update(EffectWriter.INSERT, payment.messageId(), payment.orderId(), payment.amountCents());
        }
      });
    }
  }

  private void inBatches(List<Payment> deliveries, int size) {
    for (int from = 0; from < deliveries.size(); from += size) {
      idem.onPayments(deliveries.subList(from, Math.min(deliveries.size(), from + size)), GROUP);
    }
  }

  /** {@code messages} distinct messages in order, with 1% redeliveries of recent ones mixed in. */
  private static List<Payment> deliveries(String prefix, int messages, Random random) {
    List<Payment> deliveries = new ArrayList<>(messages + messages / 50);
    List<Payment> sent = new ArrayList<>(messages);
    for (int i = 0; i < messages; i++) {
      Payment payment = new Payment(prefix + "-" + new UUID(random.nextLong(), random.nextLong()), i, 100 + i % 900);
      deliveries.add(payment);
      sent.add(payment);
      if (random.nextDouble() < DUPLICATE_RATE) {
        // A redelivery of one of the last thousand messages, as after a consumer restart.
        deliveries.add(sent.get(Math.max(0, sent.size() - 1 - random.nextInt(1000))));
      }
    }
    return deliveries;
  }

  private void clear() throws SQLException {
    execute("TRUNCATE TABLE idem_record", "TRUNCATE TABLE effects", "TRUNCATE TABLE CAMEL_MESSAGEPROCESSED",
        "TRUNCATE TABLE dedup_keys", "TRUNCATE TABLE dedup_records", "TRUNCATE TABLE guarantee_records");
    if (server == Server.POSTGRESQL) {
      execute("VACUUM");
    }
  }

  private void analyze() throws SQLException {
    if (server == Server.POSTGRESQL) {
      execute("ANALYZE idem_record", "ANALYZE effects", "ANALYZE CAMEL_MESSAGEPROCESSED", "ANALYZE dedup_keys",
          "ANALYZE dedup_records", "ANALYZE guarantee_records");
    } else {
      execute("ANALYZE TABLE idem_record, effects, CAMEL_MESSAGEPROCESSED, dedup_keys, dedup_records,"
          + " guarantee_records");
    }
  }

  private String settings() throws SQLException {
    if (server == Server.POSTGRESQL) {
      return "autovacuum = " + text("SHOW autovacuum") + ", synchronous_commit = " + text("SHOW synchronous_commit")
          + ", driver option " + server.batchOption;
    }
    return "innodb_flush_log_at_trx_commit = " + text("SELECT @@innodb_flush_log_at_trx_commit")
        + ", driver option " + server.batchOption;
  }

  private record ScanCounts(long sequential, long index) {}

  /** PostgreSQL's scan counters of Camel's table (statistics are per database, updated at transaction end). */
  private ScanCounts camelScans() throws SQLException {
    if (server != Server.POSTGRESQL) {
      return null;
    }
    try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
      statement.execute("SELECT pg_stat_clear_snapshot()");
      try (ResultSet rows = statement.executeQuery("SELECT coalesce(seq_scan, 0), coalesce(idx_scan, 0)"
          + " FROM pg_stat_user_tables WHERE relname = 'camel_messageprocessed'"
          + " AND schemaname = current_schema()")) {
        return rows.next() ? new ScanCounts(rows.getLong(1), rows.getLong(2)) : new ScanCounts(0, 0);
      }
    }
  }

  /** Camel's lookup plan after the run, and (PostgreSQL) how its table was scanned during the run. */
  private String camelPlan(ScanCounts before) throws SQLException {
    StringBuilder plan = new StringBuilder("\nCamel's lookup `" + CAMEL_LOOKUP + "`:\n\n```\n");
    try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("EXPLAIN " + CAMEL_LOOKUP)) {
      int columns = rows.getMetaData().getColumnCount();
      while (rows.next()) {
        for (int i = 1; i <= columns; i++) {
          plan.append(rows.getString(i)).append(i < columns ? " | " : "\n");
        }
      }
    }
    plan.append("```\n");
    if (before != null) {
      // Give the statistics collector a moment to receive the last transactions' counts.
      sleep(600);
      ScanCounts after = camelScans();
      plan.append(String.format(Locale.ROOT, "%nDuring the run: %,d sequential scans, %,d index scans of"
          + " CAMEL_MESSAGEPROCESSED.%n%n", after.sequential - before.sequential, after.index - before.index));
    } else {
      plan.append('\n');
    }
    return plan.toString();
  }

  private static final long RETENTION_MILLIS = java.time.Duration.ofDays(15).toMillis();

  /** A fingerprint's width and cost: the hex SHA-256 of the message id. */
  private static String sha256Hex(String text) {
    try {
      return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
          .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void execute(String... sql) throws SQLException {
    try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
      for (String s : sql) {
        statement.execute(s);
      }
    }
  }

  private long count(String sql) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    }
  }

  private String text(String sql) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getString(1);
    }
  }

  private static void admin(Server server, String sql) throws SQLException {
    try (Connection connection = DriverManager.getConnection(server.adminUrl, server.user, "");
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  private static void writeReport(Path file, String body) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, "## Message consumers: batch handlers against a plain batch INSERT and Camel\n" + body);
  }
}
