package dev.idem.benchmarks.jmh;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import javax.net.SocketFactory;

/**
 * A diagnostic, not a benchmark: what each operation really sends to PostgreSQL or MariaDB. Every pooled connection
 * goes through a counting socket (the drivers' {@code socketFactory} option), which decodes the client's protocol
 * messages (PostgreSQL: Parse/Bind/Execute/Sync…, with the prepared statement's name; MariaDB: COM_QUERY and
 * friends) and counts round trips (a read after a write). Per operation it also reports the server's log volume
 * (PostgreSQL WAL bytes, InnoDB redo bytes) and the calling thread's CPU time, and a short interleaved latency ratio
 * against the hand-written pattern on one thread. Per round trip it also times the server's and the wire's share
 * (from the client's last write to the end of the answer) and, between round trips, the client's own wall and CPU
 * time, with the calling thread's context switches: client time that is off the CPU and not waiting for an answer
 * shows there. On PostgreSQL it adds each table's inserted, updated and HOT-updated rows and block accesses per call
 * (every pooled backend flushes its statistics first), whether idem's statements run generic plans
 * ({@code pg_prepared_statements}), and idem's own statements sent by hand ({@link IdemRowsByHand}), so that the
 * record's statements and idem's code are told apart. Timing each round trip costs a little CPU per round trip in
 * every variant alike. Run with {@code java -cp … dev.idem.benchmarks.jmh.WireProbe postgresql|mariadb [calls]}.
 */
public final class WireProbe {

  static final AtomicLong roundTrips = new AtomicLong();
  static final AtomicLong bytesOut = new AtomicLong();
  static final AtomicLong bytesIn = new AtomicLong();
  static volatile boolean recording;
  /**
   * Per round trip of a call, by its position in the call (0, 1, …): the summed nanoseconds from the client's last
   * write to the end of the answer (PostgreSQL: the ReadyForQuery of the last Query or Sync sent; MariaDB: its first
   * byte), which is the server's time plus the wire's, without the client's. The per-call loops run on one thread,
   * so plain fields do (the concurrent phases do not print them).
   */
  static final long[] waitNanosByRoundTrip = new long[8];
  static int roundTripOfCall;
  /**
   * The client's side of the same calls: per gap (before the first round trip, between round trips, after the last)
   * the wall nanoseconds and the calling thread's CPU nanoseconds, so that client time off the CPU shows where it is.
   */
  static final long[] gapNanos = new long[9];
  static final long[] gapCpuNanos = new long[9];
  static long gapStartNanos;
  static long gapStartCpu;
  static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  static final List<String> messages = new ArrayList<>();

  private WireProbe() {}

  public static void main(String[] args) throws Exception {
    TestDatabase database = TestDatabase.valueOf(args[0].toUpperCase());
    int calls = args.length > 1 ? Integer.parseInt(args[1]) : 200;
    try (BenchDatabase bench = BenchDatabase.open(database)) {
      String url = bench.url() + (bench.url().contains("?") ? "&" : "?") + "socketFactory="
          + CountingSocketFactory.class.getName();
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(url);
      config.setUsername(database == TestDatabase.POSTGRESQL ? "postgres" : "root");
      config.setPassword("");
      config.setMaximumPoolSize(BenchDatabase.POOL_SIZE);
      config.setMinimumIdle(BenchDatabase.POOL_SIZE);
      try (HikariDataSource pool = new HikariDataSource(config)) {
        Operations operations = new Operations(database, pool);
        operations.createSchema();
        Map<String, IntConsumer> variants = new LinkedHashMap<>();
        variants.put("handWritten", i -> call(() -> operations.handWritten(key("h", i), order(1, i))));
        variants.put("handIdemShaped", i -> call(() -> operations.handWrittenIdemShaped(key("w", i), order(8, i))));
        variants.put("handCompletedAfter",
            i -> call(() -> operations.handWrittenCompletedAfter(key("a", i), order(9, i))));
        variants.put("handClaimFirst", i -> call(() -> operations.handWrittenClaimFirst(key("b", i), order(10, i))));
        variants.put("idemTransactional", i -> call(() -> operations.idemTransactional(key("r", i), order(2, i))));
        variants.put("idemVoid", i -> call(() -> operations.idemTransactionalVoid(key("v", i), order(3, i))));
        variants.put("idemVoidPromised",
            i -> call(() -> operations.idemTransactionalVoidPromised(key("p", i), order(11, i))));
        variants.put("idemClaim", i -> call(() -> operations.idemClaim(key("c", i), order(4, i))));
        variants.put("plain", i -> call(() -> operations.plain(order(5, i))));
        variants.put("handPlusUpdate", i -> call(() -> handWrittenPlusUpdate(pool, database, key("u", i), order(7, i))));
        if (database == TestDatabase.MARIADB) {
          variants.put("idemStatementsByHand",
              i -> call(() -> idemStatementsByHand(pool, key("s", i), false, order(12, i))));
          variants.put("idemStatementsInPlace",
              i -> call(() -> idemStatementsByHand(pool, key("t", i), true, order(13, i))));
          // The void completion (only the state changes), on idem_record and on a copy whose state is fixed-width.
          try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE idem_record_fixed_state LIKE idem_record");
            statement.execute("ALTER TABLE idem_record_fixed_state MODIFY state CHAR(16) CHARACTER SET ascii"
                + " COLLATE ascii_bin NOT NULL");
          }
          variants.put("idemVoidStatements",
              i -> call(() -> idemVoidStatementsByHand(pool, "idem_record", key("x", i), order(14, i))));
          variants.put("idemVoidStatementsFixedState",
              i -> call(() -> idemVoidStatementsByHand(pool, "idem_record_fixed_state", key("y", i), order(15, i))));
        }
        variants.put("handClaimFloor", i -> call(() -> claimThenWork(pool, database, key("f", i), order(6, i))));
        if (database == TestDatabase.POSTGRESQL) {
          // idem's own statements on idem_record, written by hand: what the record's statements cost without idem's
          // code, and which of the completion's forms (CTE or plain UPDATE, COMMIT carried or separate) costs what.
          for (IdemRowsByHand.Completion completion : IdemRowsByHand.Completion.values()) {
            variants.put("byHand" + completion.label, i -> call(() -> IdemRowsByHand.placeOrder(pool, completion,
                key("z" + completion.ordinal(), i), order(20 + completion.ordinal(), i))));
          }
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        int warmUp = Integer.getInteger("probe.warmUp", 1500);
        for (int round = 0; round < 3; round++) {
          for (Map.Entry<String, IntConsumer> variant : variants.entrySet()) {
            for (int i = 0; i < warmUp / 3; i++) {
              variant.getValue().accept(10_000_000 + round * 1_000_000 + i); // server-side prepares, JIT
            }
          }
        }
        String concurrent = System.getProperty("probe.concurrent");
        if (concurrent != null) {
          concurrentPhases(pool, database, variants, concurrent.split(","));
          return;
        }
        String profiled = System.getProperty("probe.profile");
        if (profiled != null) {
          // For a profiler attached to this JVM: only the named variants, in turn, for probe.seconds.
          long end = System.nanoTime() + Long.getLong("probe.seconds", 30) * 1_000_000_000L;
          int i = 50_000_000;
          while (System.nanoTime() < end) {
            for (String name : profiled.split(",")) {
              for (int n = 0; n < 50; n++) {
                variants.get(name).accept(i++);
              }
            }
          }
          return;
        }
        // Not from the pool: the thread's warm pooled connection (server-side prepared statements) stays its own.
        try (Connection admin = java.sql.DriverManager.getConnection(bench.url(),
            database == TestDatabase.POSTGRESQL ? "postgres" : "root", "")) {
          for (Map.Entry<String, IntConsumer> variant : variants.entrySet()) {
            analyze(admin, database);
            // One traced call.
            synchronized (messages) {
              messages.clear();
            }
            long rt0 = roundTrips.get();
            long out0 = bytesOut.get();
            long in0 = bytesIn.get();
            recording = true;
            variant.getValue().accept(20);
            recording = false;
            System.out.printf("%n=== %s on %s: %d round trips, %d bytes out, %d bytes in (one call)%n",
                variant.getKey(), database, roundTrips.get() - rt0, bytesOut.get() - out0, bytesIn.get() - in0);
            synchronized (messages) {
              messages.forEach(m -> System.out.println("  " + m));
            }
            // Log volume and CPU per call over many calls.
            Map<String, long[]> tables0 = tableCounters(pool, admin, database);
            long log0 = logPosition(admin, database);
            Arrays.fill(waitNanosByRoundTrip, 0);
            Arrays.fill(gapNanos, 0);
            Arrays.fill(gapCpuNanos, 0);
            long[] switches0 = contextSwitches();
            SessionStatus status0 = database == TestDatabase.MARIADB ? SessionStatus.of(pool) : null;
            long server0 = ServerCpu.nanos(database);
            long cpu0 = threads.getCurrentThreadCpuTime();
            rt0 = roundTrips.get();
            for (int i = 0; i < calls; i++) {
              variant.getValue().accept(1000 + i);
            }
            long cpu = threads.getCurrentThreadCpuTime() - cpu0;
            long log = logPosition(admin, database) - log0;
            System.out.printf("  per call over %d calls: %.1f round trips, %.0f log bytes, %.1f us client CPU%n",
                calls, (roundTrips.get() - rt0) / (double) calls, log / (double) calls, cpu / 1000.0 / calls);
            StringBuilder waits = new StringBuilder("  per call, server + wire time per round trip (us):");
            for (int rt = 0; rt < waitNanosByRoundTrip.length && waitNanosByRoundTrip[rt] > 0; rt++) {
              waits.append(String.format(" #%d %.1f", rt + 1, waitNanosByRoundTrip[rt] / 1000.0 / calls));
            }
            System.out.println(waits);
            StringBuilder gaps = new StringBuilder("  per call, client time before/between/after round trips, wall/cpu (us):");
            for (int g = 0; g < gapNanos.length; g++) {
              if (gapNanos[g] > 0) {
                gaps.append(String.format(" g%d %.1f/%.1f", g, gapNanos[g] / 1000.0 / calls, gapCpuNanos[g] / 1000.0 / calls));
              }
            }
            System.out.println(gaps);
            long[] switches = contextSwitches();
            System.out.printf("  per call, context switches of the calling thread: %.2f voluntary, %.2f involuntary%n",
                (switches[0] - switches0[0]) / (double) calls, (switches[1] - switches0[1]) / (double) calls);
            printTableCounters(tables0, tableCounters(pool, admin, database), calls);
            long server = ServerCpu.nanos(database) - server0;
            if (server0 >= 0) {
              System.out.printf("  server process CPU per call: %.1f us (all its threads, 10 ms ticks)%n",
                  server / 1000.0 / calls);
            }
            if (status0 != null) {
              System.out.println("  server, per call: " + SessionStatus.of(pool).perCallSince(status0, calls));
            }
          }
        }
        if (database == TestDatabase.POSTGRESQL) {
          printPreparedStatements(pool);
        }
        // Interleaved latency ratios on one thread: blocks of each variant in turn, median per-block ratio.
        int blocks = Integer.getInteger("probe.blocks", 15);
        int perBlock = Integer.getInteger("probe.perBlock", 60);
        Map<String, double[]> ratios = new LinkedHashMap<>();
        Map<String, long[][]> blockSums = new LinkedHashMap<>();
        int next = 100_000;
        for (int b = 0; b < blocks; b++) {
          Map<String, Long> nanos = new LinkedHashMap<>();
          for (Map.Entry<String, IntConsumer> variant : variants.entrySet()) {
            Arrays.fill(waitNanosByRoundTrip, 0);
            long cpu0 = threads.getCurrentThreadCpuTime();
            long start = System.nanoTime();
            for (int i = 0; i < perBlock; i++) {
              variant.getValue().accept(next++);
            }
            nanos.put(variant.getKey(), System.nanoTime() - start);
            long[][] perBlockSums = blockSums.computeIfAbsent(variant.getKey(),
                k -> new long[waitNanosByRoundTrip.length + 2][blocks]);
            for (int rt = 0; rt < waitNanosByRoundTrip.length; rt++) {
              perBlockSums[rt][b] = waitNanosByRoundTrip[rt];
            }
            perBlockSums[waitNanosByRoundTrip.length][b] = System.nanoTime() - start;
            perBlockSums[waitNanosByRoundTrip.length + 1][b] = threads.getCurrentThreadCpuTime() - cpu0;
          }
          long base = nanos.get("handWritten");
          for (Map.Entry<String, Long> e : nanos.entrySet()) {
            ratios.computeIfAbsent(e.getKey(), k -> new double[blocks])[b] = base / (double) e.getValue();
          }
        }
        System.out.println("\n=== throughput ratio to handWritten, 1 thread, " + blocks + " interleaved blocks of "
            + perBlock + " calls: median [min..max]");
        for (Map.Entry<String, double[]> e : ratios.entrySet()) {
          double[] r = e.getValue().clone();
          Arrays.sort(r);
          System.out.printf("  %-20s %.3f [%.3f..%.3f]%n", e.getKey(), r[r.length / 2], r[0], r[r.length - 1]);
        }
        System.out.println("\n=== the same blocks, per call (us, median over blocks): elapsed, client CPU, server + wire"
            + " time of each round trip");
        for (Map.Entry<String, long[][]> e : blockSums.entrySet()) {
          long[][] sums = e.getValue();
          double n = perBlock * 1000.0;
          StringBuilder line = new StringBuilder(String.format("  %-24s elapsed %6.1f  cpu %5.1f  waits",
              e.getKey(), median(sums[waitNanosByRoundTrip.length]) / n,
              median(sums[waitNanosByRoundTrip.length + 1]) / n));
          for (int rt = 0; rt < waitNanosByRoundTrip.length && median(sums[rt]) > 0; rt++) {
            line.append(String.format(" #%d %.1f", rt + 1, median(sums[rt]) / n));
          }
          System.out.println(line);
        }
      }
    }
  }

  /**
   * {@code probe.threads} threads run the named variants in phases of {@code probe.phaseMillis}, all threads on the
   * same variant at a time, variants in turn for {@code probe.rounds} rounds; per phase the calls completed, and the
   * wait events of the server's active backends sampled every 5 ms (PostgreSQL: pg_stat_activity of this database).
   * Prints per variant the median throughput ratio to the first variant over the rounds, and the wait events.
   */
  private static void concurrentPhases(javax.sql.DataSource pool, TestDatabase database,
      Map<String, IntConsumer> variants, String[] names) throws Exception {
    int threads = Integer.getInteger("probe.threads", 8);
    long phaseNanos = Long.getLong("probe.phaseMillis", 1500) * 1_000_000L;
    int rounds = Integer.getInteger("probe.rounds", 8);
    AtomicLong ids = new AtomicLong(200_000_000L);
    Map<String, double[]> rates = new LinkedHashMap<>();
    Map<String, Map<String, Integer>> waits = new LinkedHashMap<>();
    try (Connection sampler = java.sql.DriverManager.getConnection(TestDatabase.POSTGRESQL == database
        ? "jdbc:postgresql://127.0.0.1:5432/test" : "jdbc:mariadb://127.0.0.1:3306/test",
        database == TestDatabase.POSTGRESQL ? "postgres" : "root", "")) {
      for (int round = 0; round < rounds; round++) {
        for (String name : names) {
          IntConsumer variant = variants.get(name);
          AtomicLong done = new AtomicLong();
          long end = System.nanoTime() + phaseNanos;
          List<Thread> workers = new ArrayList<>();
          for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
              while (System.nanoTime() < end) {
                variant.accept((int) ids.incrementAndGet());
                done.incrementAndGet();
              }
            });
            worker.start();
            workers.add(worker);
          }
          long start = System.nanoTime();
          Map<String, Integer> seen = waits.computeIfAbsent(name, k -> new java.util.TreeMap<>());
          while (System.nanoTime() < end - 50_000_000L) {
            if (database == TestDatabase.POSTGRESQL && round > 0) {
              try (Statement statement = sampler.createStatement(); ResultSet rs = statement.executeQuery(
                  "SELECT coalesce(wait_event_type, 'CPU') || ':' || coalesce(wait_event, '-') FROM"
                      + " pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid()"
                      + " AND backend_type = 'client backend' AND (query LIKE '%idem_record%'"
                      + " OR query LIKE '%orders%' OR query LIKE '%request_keys%' OR query = 'COMMIT'"
                      + " OR query LIKE '%COMMIT')")) {
                while (rs.next()) {
                  seen.merge(rs.getString(1), 1, Integer::sum);
                }
              }
            }
            if (database == TestDatabase.MARIADB && round > 0) {
              try (Statement statement = sampler.createStatement(); ResultSet rs = statement.executeQuery(
                  "SELECT concat(coalesce(state, '-'), ':', substr(coalesce(info, '-'), 1, 12)) FROM"
                      + " information_schema.processlist WHERE db LIKE 'idem_b_%' AND command = 'Query'"
                      + " AND id <> connection_id()")) {
                while (rs.next()) {
                  seen.merge(rs.getString(1), 1, Integer::sum);
                }
              }
            }
            Thread.sleep(5);
          }
          for (Thread worker : workers) {
            worker.join();
          }
          double rate = done.get() / ((System.nanoTime() - start) / 1e9);
          if (round > 0) { // the first round warms up
            rates.computeIfAbsent(name, k -> new double[rounds - 1])[round - 1] = rate;
          }
        }
      }
    }
    System.out.println("=== " + threads + " threads, " + (rounds - 1) + " rounds of " + phaseNanos / 1_000_000
        + " ms phases: ops/s median, ratio to " + names[0] + " median [min..max]");
    double[] base = rates.get(names[0]);
    for (String name : names) {
      double[] r = rates.get(name);
      double[] ratio = new double[r.length];
      for (int i = 0; i < r.length; i++) {
        ratio[i] = r[i] / base[i];
      }
      double[] sortedRates = r.clone();
      Arrays.sort(sortedRates);
      Arrays.sort(ratio);
      System.out.printf("  %-20s %8.0f ops/s  ratio %.3f [%.3f..%.3f]  waits %s%n", name,
          sortedRates[r.length / 2], ratio[r.length / 2], ratio[0], ratio[r.length - 1], waits.get(name));
    }
  }

  /**
   * The floor of a claim that commits before its work, written by hand: the key inserted in auto-commit mode (its
   * own commit), then the business write and the key's completion in a second transaction (the second commit).
   */
  private static void claimThenWork(javax.sql.DataSource pool, TestDatabase database, String key,
      BenchOrders.PlaceOrder order) throws SQLException {
    String claim = database == TestDatabase.POSTGRESQL
        ? "INSERT INTO request_keys (request_key, order_id, total_cents, created_at) VALUES (?, 0, 0, ?)"
            + " ON CONFLICT DO NOTHING"
        : "INSERT IGNORE INTO request_keys (request_key, order_id, total_cents, created_at) VALUES (?, 0, 0, ?)";
    try (Connection connection = pool.getConnection()) {
      try (java.sql.PreparedStatement insert = connection.prepareStatement(claim)) {
        insert.setString(1, key);
        insert.setLong(2, System.currentTimeMillis());
        if (insert.executeUpdate() != 1) {
          throw new IllegalStateException("duplicate " + key);
        }
      }
      connection.setAutoCommit(false);
      try {
        OrderRows.insert(connection, order);
        try (java.sql.PreparedStatement complete = connection.prepareStatement(
            "UPDATE request_keys SET order_id = ?, total_cents = ? WHERE request_key = ?")) {
          complete.setLong(1, order.orderId());
          complete.setLong(2, order.totalCents());
          complete.setString(3, key);
          complete.executeUpdate();
        }
        connection.commit();
      } catch (SQLException | RuntimeException e) {
        connection.rollback();
        throw e;
      } finally {
        connection.setAutoCommit(true);
      }
    }
  }

  /** MariaDB only: idem's statements for a void first execution (PENDING claim, write, state-only completion). */
  private static void idemVoidStatementsByHand(javax.sql.DataSource pool, String table, String key,
      BenchOrders.PlaceOrder order) throws SQLException {
    String fingerprint = String.format("%064x", new java.math.BigInteger(1, key.getBytes(StandardCharsets.UTF_8)));
    OwnTransaction.run(pool, connection -> {
      IdemRowsByHand.claimPending(connection, "INSERT IGNORE INTO " + table
          + " (scope, idem_key, state, fingerprint, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
          "bench.orders.void", key, fingerprint);
      OrderRows.insert(connection, order);
      try (java.sql.PreparedStatement complete = connection.prepareStatement("UPDATE " + table + " SET state ="
          + " 'COMPLETED', result = ?, error_type = ?, result_shape = ? WHERE scope = ? AND idem_key = ? AND"
          + " state = 'PENDING'")) {
        complete.setString(1, null);
        complete.setString(2, null);
        complete.setString(3, null);
        complete.setString(4, "bench.orders.void");
        complete.setString(5, key);
        if (complete.executeUpdate() != 1) {
          throw new IllegalStateException("not completed " + key);
        }
      }
    });
  }

  /**
   * MariaDB only: idem's own statements for a first execution storing a result (the PENDING claim in idem_record, the
   * business write, the completing UPDATE, COMMIT) bound and sent by hand, without the runtime: tells what the
   * statements cost the server from what the runtime adds. {@code inPlace}: the completion rewrites only
   * created_at (fixed size, so InnoDB updates the record in place) instead of growing the record by the state,
   * result and shape: tells what the record's growth costs.
   */
  private static void idemStatementsByHand(javax.sql.DataSource pool, String key, boolean inPlace,
      BenchOrders.PlaceOrder order) throws SQLException {
    String fingerprint = String.format("%064x", new java.math.BigInteger(1, key.getBytes(StandardCharsets.UTF_8)));
    OwnTransaction.run(pool, connection -> {
      long now = System.currentTimeMillis();
      IdemRowsByHand.claimPending(connection, "INSERT IGNORE INTO idem_record"
          + " (scope, idem_key, state, fingerprint, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
          "bench.orders.byhand", key, fingerprint);
      OrderRows.insert(connection, order);
      if (inPlace) {
        try (java.sql.PreparedStatement complete = connection.prepareStatement(
            "UPDATE idem_record SET created_at = ? WHERE scope = ? AND idem_key = ? AND state = 'PENDING'")) {
          complete.setLong(1, now + 1);
          complete.setString(2, "bench.orders.byhand");
          complete.setString(3, key);
          complete.executeUpdate();
        }
        connection.commit();
        return;
      }
      try (java.sql.PreparedStatement complete = connection.prepareStatement("UPDATE idem_record SET state ="
          + " 'COMPLETED', result = ?, error_type = ?, result_shape = ? WHERE scope = ? AND idem_key = ? AND"
          + " state = 'PENDING'")) {
        complete.setString(1, "{\"orderId\":" + order.orderId() + ",\"totalCents\":" + order.totalCents() + "}");
        complete.setString(2, null);
        complete.setString(3, "6a26cf6e96a54f0e6a26cf6e96a54f0e6a26cf6e96a54f0e6a26cf6e96a54f0e");
        complete.setString(4, "bench.orders.byhand");
        complete.setString(5, key);
        complete.executeUpdate();
      }
    });
  }

  /**
   * The hand-written pattern plus one UPDATE of the key's row in the same transaction: what MariaDB's PENDING claim
   * and its completing UPDATE cost over a claim that is complete on insert, measured on the lean table.
   */
  private static void handWrittenPlusUpdate(javax.sql.DataSource pool, TestDatabase database, String key,
      BenchOrders.PlaceOrder order) throws SQLException {
    String claim = database == TestDatabase.POSTGRESQL
        ? "INSERT INTO request_keys (request_key, order_id, total_cents, created_at) VALUES (?, ?, ?, ?)"
            + " ON CONFLICT DO NOTHING"
        : "INSERT IGNORE INTO request_keys (request_key, order_id, total_cents, created_at) VALUES (?, ?, ?, ?)";
    OwnTransaction.run(pool, connection -> {
      try (java.sql.PreparedStatement insert = connection.prepareStatement(claim)) {
        insert.setString(1, key);
        insert.setLong(2, order.orderId());
        insert.setLong(3, order.totalCents());
        insert.setLong(4, System.currentTimeMillis());
        if (insert.executeUpdate() != 1) {
          throw new IllegalStateException("duplicate " + key);
        }
      }
      OrderRows.insert(connection, order);
      try (java.sql.PreparedStatement complete = connection.prepareStatement(
          "UPDATE request_keys SET created_at = ? WHERE request_key = ?")) {
        complete.setLong(1, System.currentTimeMillis());
        complete.setString(2, key);
        complete.executeUpdate();
      }
    });
  }

  /** The calling thread's voluntary and involuntary context switches so far (Linux), or zeros. */
  private static long[] contextSwitches() {
    long[] switches = new long[2];
    try {
      for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/thread-self/status"))) {
        if (line.startsWith("voluntary_ctxt_switches:")) {
          switches[0] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
        } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
          switches[1] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: no figures
    }
    return switches;
  }

  private static long median(long[] values) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static String key(String prefix, int i) {
    return prefix + "-" + i;
  }

  private static BenchOrders.PlaceOrder order(int variant, int i) {
    return Operations.order(variant * 1_000_000_000L + i);
  }

  interface Call {
    void run() throws Exception;
  }

  private static void call(Call call) {
    roundTripOfCall = 0;
    gapStartNanos = System.nanoTime();
    gapStartCpu = THREADS.getCurrentThreadCpuTime();
    try {
      call.run();
      int gap = Math.min(roundTripOfCall, gapNanos.length - 1);
      gapNanos[gap] += System.nanoTime() - gapStartNanos;
      gapCpuNanos[gap] += THREADS.getCurrentThreadCpuTime() - gapStartCpu;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The database server's process CPU time (user + system, every thread) from /proc, where the server runs on this
   * machine and is visible: the server-side work of the calls in between, other clients' included. -1 if unknown.
   */
  private static final class ServerCpu {
    private static final java.nio.file.Path MARIADB = statOf("mariadbd");
    private static final java.nio.file.Path POSTGRES = statOf("postgres");

    private ServerCpu() {}

    private static java.nio.file.Path statOf(String command) {
      return ProcessHandle.allProcesses()
          .filter(p -> p.info().command().map(c -> c.endsWith("/" + command)).orElse(false))
          .filter(p -> p.parent().map(parent -> !parent.info().command().orElse("").endsWith("/" + command))
              .orElse(true))
          .findFirst().map(p -> java.nio.file.Path.of("/proc/" + p.pid() + "/stat")).orElse(null);
    }

    static long nanos(TestDatabase database) {
      java.nio.file.Path stat = database == TestDatabase.MARIADB ? MARIADB : null;
      if (stat == null) {
        return -1;
      }
      try {
        String text = java.nio.file.Files.readString(stat);
        String[] fields = text.substring(text.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10_000_000L;
      } catch (IOException | RuntimeException e) {
        return -1;
      }
    }
  }

  /**
   * MariaDB's SHOW SESSION STATUS counters of the pooled connection this thread gets (Hikari hands a thread the
   * connection it returned last, so the one the variant just used; checked by its CONNECTION_ID()). The two readings'
   * own statements are counted too (a constant handful, spread over the calls).
   */
  private record SessionStatus(long connectionId, Map<String, Long> counters) {
    private static final List<String> SHOWN = List.of("Questions", "Com_insert", "Com_update", "Com_select",
        "Com_commit", "Com_set_option", "Handler_write", "Handler_update", "Handler_read_key",
        "Handler_read_rnd_next", "Handler_commit", "Handler_prepare", "Innodb_rows_inserted", "Innodb_rows_updated",
        "Innodb_rows_read", "Rows_read", "Bytes_received", "Bytes_sent");

    static SessionStatus of(javax.sql.DataSource pool) throws SQLException {
      try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
        long id;
        try (ResultSet rs = statement.executeQuery("SELECT CONNECTION_ID()")) {
          rs.next();
          id = rs.getLong(1);
        }
        Map<String, Long> counters = new LinkedHashMap<>();
        try (ResultSet rs = statement.executeQuery("SHOW SESSION STATUS")) {
          while (rs.next()) {
            try {
              counters.put(rs.getString(1), Long.parseLong(rs.getString(2)));
            } catch (NumberFormatException notACounter) {
              // a text or fractional value
            }
          }
        }
        return new SessionStatus(id, counters);
      }
    }

    String perCallSince(SessionStatus before, int calls) {
      if (before.connectionId != connectionId) {
        return "(another connection: " + before.connectionId + " then " + connectionId + ")";
      }
      StringBuilder text = new StringBuilder();
      for (String name : SHOWN) {
        long delta = counters.getOrDefault(name, 0L) - before.counters.getOrDefault(name, 0L);
        text.append(name).append('=').append(String.format("%.2f", delta / (double) calls)).append(' ');
      }
      return text.toString();
    }
  }

  private static void analyze(Connection admin, TestDatabase database) throws SQLException {
    try (Statement statement = admin.createStatement()) {
      if (database == TestDatabase.POSTGRESQL) {
        statement.execute("ANALYZE");
      } else {
        statement.execute("ANALYZE TABLE idem_record, orders, request_keys, request_keys_wide");
      }
    }
  }

  /**
   * The statistics of the database's tables ({@link #TABLE_COUNTERS}). A backend keeps its counts to itself for up
   * to 10 s after its last flush; each pooled connection is made to flush them first.
   */
  private static Map<String, long[]> tableCounters(javax.sql.DataSource pool, Connection admin, TestDatabase database)
      throws SQLException {
    Map<String, long[]> counters = new java.util.TreeMap<>();
    if (database != TestDatabase.POSTGRESQL) {
      return counters;
    }
    onEveryPooledConnection(pool, connection -> {
      try (Statement statement = connection.createStatement()) {
        statement.execute("SELECT pg_stat_force_next_flush()"); // flushed as this backend goes idle after it
      }
    });
    try (Statement statement = admin.createStatement()) {
      statement.execute("SELECT pg_stat_clear_snapshot()");
      try (ResultSet rs = statement.executeQuery("SELECT t.relname, t.n_tup_ins, t.n_tup_upd, t.n_tup_hot_upd,"
          + " io.heap_blks_read + io.heap_blks_hit, coalesce(io.idx_blks_read + io.idx_blks_hit, 0)"
          + " FROM pg_stat_user_tables t JOIN pg_statio_user_tables io USING (relid)"
          + " WHERE t.schemaname = current_schema()")) {
        while (rs.next()) {
          long[] values = new long[5];
          for (int i = 0; i < values.length; i++) {
            values[i] = rs.getLong(i + 2);
          }
          counters.put(rs.getString(1), values);
        }
      }
    }
    return counters;
  }

  interface ConnectionWork {
    void run(Connection connection) throws SQLException;
  }

  /** Runs {@code work} on each of the pool's connections, all borrowed at once so that each is a different one. */
  private static void onEveryPooledConnection(javax.sql.DataSource pool, ConnectionWork work) throws SQLException {
    List<Connection> borrowed = new ArrayList<>();
    try {
      for (int i = 0; i < BenchDatabase.POOL_SIZE; i++) {
        borrowed.add(pool.getConnection());
      }
      for (Connection connection : borrowed) {
        work.run(connection);
      }
    } finally {
      for (Connection connection : borrowed) {
        connection.close();
      }
    }
  }

  /**
   * Whether the server plans idem's statements once: per pooled connection, its server-side prepared statements on
   * idem_record with how often each ran a generic plan (planned once) or a custom plan (planned per execution).
   */
  private static void printPreparedStatements(javax.sql.DataSource pool) throws SQLException {
    System.out.println("\n=== server-side prepared statements on idem_record (pg_prepared_statements of each pooled"
        + " connection): generic plans / custom plans");
    onEveryPooledConnection(pool, connection -> {
      try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(
          "SELECT name, generic_plans, custom_plans, statement FROM pg_prepared_statements"
              + " WHERE statement LIKE '%idem_record%' ORDER BY generic_plans + custom_plans DESC")) {
        while (rs.next()) {
          System.out.printf("  %-5s %6d / %-4d %s%n", rs.getString(1), rs.getLong(2), rs.getLong(3),
              CountingSocket.abbreviate(rs.getString(4)));
        }
      }
    });
  }

  private static final String[] TABLE_COUNTERS = {"ins", "upd", "hot_upd", "heap_blks", "idx_blks"};

  private static void printTableCounters(Map<String, long[]> before, Map<String, long[]> after, int calls) {
    for (Map.Entry<String, long[]> table : after.entrySet()) {
      long[] b = before.getOrDefault(table.getKey(), new long[TABLE_COUNTERS.length]);
      long[] a = table.getValue();
      if (a[0] == b[0] && a[1] == b[1]) {
        continue;
      }
      StringBuilder line = new StringBuilder("  per call, " + table.getKey() + ":");
      for (int i = 0; i < TABLE_COUNTERS.length; i++) {
        line.append(String.format(" %s %.2f", TABLE_COUNTERS[i], (a[i] - b[i]) / (double) calls));
      }
      System.out.println(line);
    }
  }

  private static long logPosition(Connection admin, TestDatabase database) throws SQLException {
    try (Statement statement = admin.createStatement()) {
      if (database == TestDatabase.POSTGRESQL) {
        try (ResultSet rs = statement.executeQuery("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn")) {
          rs.next();
          return rs.getLong(1);
        }
      }
      try (ResultSet rs = statement.executeQuery("SHOW GLOBAL STATUS LIKE 'Innodb_lsn_current'")) {
        rs.next();
        return rs.getLong(2);
      }
    }
  }

  /** For the drivers' {@code socketFactory} option: unconnected sockets that count and decode what they carry. */
  public static final class CountingSocketFactory extends SocketFactory {
    public CountingSocketFactory() {}

    public CountingSocketFactory(String ignored) {}

    @Override
    public Socket createSocket() {
      return new CountingSocket();
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
      Socket socket = new CountingSocket();
      socket.connect(new java.net.InetSocketAddress(host, port));
      return socket;
    }

    @Override
    public Socket createSocket(String host, int port, java.net.InetAddress localHost, int localPort)
        throws IOException {
      return createSocket(host, port);
    }

    @Override
    public Socket createSocket(java.net.InetAddress host, int port) throws IOException {
      return createSocket(host.getHostAddress(), port);
    }

    @Override
    public Socket createSocket(java.net.InetAddress address, int port, java.net.InetAddress localAddress,
        int localPort) throws IOException {
      return createSocket(address.getHostAddress(), port);
    }
  }

  static final class CountingSocket extends Socket {
    private boolean wroteSinceRead;
    private long lastWriteNanos;
    /** PostgreSQL: the ReadyForQuery messages still due for the Query and Sync messages sent. */
    private int readyExpected;
    /** The round trip of the call whose answer is awaited, or -1. */
    private int waitingRoundTrip = -1;
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();
    private InputStream in;
    private OutputStream out;
    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
    private boolean postgresTyped;
    private int port;

    @Override
    public void connect(java.net.SocketAddress endpoint, int timeout) throws IOException {
      super.connect(endpoint, timeout);
      port = ((java.net.InetSocketAddress) endpoint).getPort();
    }

    @Override
    public synchronized InputStream getInputStream() throws IOException {
      if (in == null) {
        in = new FilterInputStream(super.getInputStream()) {
          @Override
          public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
              counted(new byte[] {(byte) b}, 0, 1);
            }
            return b;
          }

          @Override
          public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            if (n > 0) {
              counted(buffer, offset, n);
            }
            return n;
          }
        };
      }
      return in;
    }

    @Override
    public synchronized OutputStream getOutputStream() throws IOException {
      if (out == null) {
        out = new FilterOutputStream(super.getOutputStream()) {
          @Override
          public void write(byte[] buffer, int offset, int length) throws IOException {
            sent(buffer, offset, length);
            out.write(buffer, offset, length);
          }

          @Override
          public void write(int b) throws IOException {
            sent(new byte[] {(byte) b}, 0, 1);
            out.write(b);
          }
        };
      }
      return out;
    }

    private void counted(byte[] buffer, int offset, int n) {
      bytesIn.addAndGet(n);
      if (wroteSinceRead) {
        wroteSinceRead = false;
        roundTrips.incrementAndGet();
        waitingRoundTrip = roundTripOfCall++;
      }
      if (port == 5432 && postgresTyped) {
        // The answer is complete with the ReadyForQuery of the last Query or Sync sent: a BEGIN that pgjdbc sends
        // ahead of the first statement is answered at once, the statement after it later, in the same round trip.
        received.write(buffer, offset, n);
        byte[] data = received.toByteArray();
        int at = 0;
        while (data.length - at >= 5 && data.length - at >= 1 + int32(data, at + 1)) {
          if (data[at] == 'Z' && readyExpected > 0 && --readyExpected == 0) {
            answered();
          }
          at += 1 + int32(data, at + 1);
        }
        received.reset();
        received.write(data, at, data.length - at);
      } else if (waitingRoundTrip >= 0) {
        answered(); // MariaDB: the first bytes of the answer
      }
    }

    /** The answer to the round trip waited for is complete: its wait ends, the client's next gap begins. */
    private void answered() {
      if (waitingRoundTrip >= 0 && waitingRoundTrip < waitNanosByRoundTrip.length) {
        waitNanosByRoundTrip[waitingRoundTrip] += System.nanoTime() - lastWriteNanos;
      }
      waitingRoundTrip = -1;
      gapStartNanos = System.nanoTime();
      gapStartCpu = THREADS.getCurrentThreadCpuTime();
    }

    private void sent(byte[] buffer, int offset, int length) {
      if (!wroteSinceRead && roundTripOfCall < gapNanos.length) {
        gapNanos[roundTripOfCall] += System.nanoTime() - gapStartNanos;
        gapCpuNanos[roundTripOfCall] += THREADS.getCurrentThreadCpuTime() - gapStartCpu;
      }
      bytesOut.addAndGet(length);
      wroteSinceRead = true;
      lastWriteNanos = System.nanoTime();
      pending.write(buffer, offset, length);
      decode();
    }

    private void decode() {
      byte[] data = pending.toByteArray();
      int at = 0;
      while (true) {
        int used = port == 5432 ? postgresMessage(data, at) : mariaDbPacket(data, at);
        if (used <= 0) {
          break;
        }
        at += used;
      }
      pending.reset();
      pending.write(data, at, data.length - at);
    }

    private int postgresMessage(byte[] data, int at) {
      if (!postgresTyped) {
        if (data.length - at < 4) {
          return 0;
        }
        int length = int32(data, at);
        if (data.length - at < length) {
          return 0;
        }
        int code = length >= 8 ? int32(data, at + 4) : 0;
        if (code != 80877103 && code != 80877104) {
          postgresTyped = true; // the startup message; typed messages follow
        }
        return length;
      }
      if (data.length - at < 5) {
        return 0;
      }
      char type = (char) data[at];
      int length = int32(data, at + 1);
      if (data.length - at < 1 + length) {
        return 0;
      }
      if (type == 'Q' || type == 'S') {
        readyExpected++;
      }
      if (recording) {
        int body = at + 5;
        String text;
        switch (type) {
          case 'P' -> {
            String name = cString(data, body);
            String query = cString(data, body + name.getBytes(StandardCharsets.UTF_8).length + 1);
            text = "Parse stmt=" + (name.isEmpty() ? "unnamed" : name) + " " + abbreviate(query);
          }
          case 'B' -> {
            String portal = cString(data, body);
            String name = cString(data, body + portal.getBytes(StandardCharsets.UTF_8).length + 1);
            text = "Bind stmt=" + (name.isEmpty() ? "unnamed" : name);
          }
          case 'Q' -> text = "Query " + abbreviate(cString(data, body));
          case 'E' -> text = "Execute";
          case 'S' -> text = "Sync";
          case 'D' -> text = "Describe";
          case 'C' -> text = "Close";
          case 'H' -> text = "Flush";
          default -> text = "msg " + type;
        }
        note(text);
      }
      return 1 + length;
    }

    private int mariaDbPacket(byte[] data, int at) {
      if (data.length - at < 4) {
        return 0;
      }
      int length = (data[at] & 0xff) | (data[at + 1] & 0xff) << 8 | (data[at + 2] & 0xff) << 16;
      if (data.length - at < 4 + length) {
        return 0;
      }
      int sequence = data[at + 3] & 0xff;
      if (recording && sequence == 0 && length > 0) {
        int command = data[at + 4] & 0xff;
        String text = switch (command) {
          case 0x03 -> "COM_QUERY " + abbreviate(new String(data, at + 5, length - 1, StandardCharsets.UTF_8));
          case 0x16 -> "COM_STMT_PREPARE " + abbreviate(new String(data, at + 5, length - 1, StandardCharsets.UTF_8));
          case 0x17 -> "COM_STMT_EXECUTE";
          case 0x19 -> "COM_STMT_CLOSE";
          case 0x1f -> "COM_RESET_CONNECTION";
          case 0x0e -> "COM_PING";
          default -> "COM 0x" + Integer.toHexString(command);
        };
        note(text);
      }
      return 4 + length;
    }

    private void note(String text) {
      synchronized (messages) {
        messages.add((wroteSinceRead ? "" : "") + "[rt " + roundTrips.get() + "] " + text);
      }
    }

    static String abbreviate(String sql) {
      String flat = sql.replaceAll("\\s+", " ").replaceAll("[\\x00-\\x1f]", "?");
      return flat.length() > 150 ? flat.substring(0, 150) + "…" : flat;
    }

    private static int int32(byte[] data, int at) {
      return (data[at] & 0xff) << 24 | (data[at + 1] & 0xff) << 16 | (data[at + 2] & 0xff) << 8 | (data[at + 3] & 0xff);
    }

    private static String cString(byte[] data, int at) {
      int end = at;
      while (end < data.length && data[end] != 0) {
        end++;
      }
      return new String(data, at, end - at, StandardCharsets.UTF_8);
    }
  }
}
