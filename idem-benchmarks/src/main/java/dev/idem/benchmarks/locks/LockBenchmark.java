package dev.idem.benchmarks.locks;

import dev.idem.benchmarks.jmh.BenchDatabase;
import dev.idem.redis.RedisLockProvider;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.LockLease;
import dev.idem.runtime.LockProvider;
import dev.idem.testing.TestDatabase;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbc.JdbcLockProvider;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Single-flight lock acquire + release rate, idem against ShedLock on the same database in the same run (issue 24):
 * idem's {@code LockProvider} (the {@code idem_lock} table: database time, a fencing token per acquisition), idem's
 * {@code runSingleFlight} with an empty body (the same plus the watchdog's start and stop), ShedLock's plain JDBC
 * provider (the application's clock, no fencing token) and its JdbcTemplate provider with {@code usingDbTime()}.
 * A fifth subject, idem's {@code RedisLockProvider} on the Redis at {@code idem.bench.redis} (default
 * {@code redis://127.0.0.1:6379}, keys under a prefix of the run's own, removed at the end), shows what moving the
 * locks off the database buys; it has no ShedLock counterpart in the ratios. A sixth, {@link TwoUpdateFloor}, is the
 * floor: the two auto-commit UPDATEs every durable lease lock in a table sends per cycle, by hand; idem and ShedLock
 * JDBC are each also given over it.
 * Each thread takes and releases a lock of its own name, so that every attempt wins: the figure is the cost of a
 * lock cycle, not of contention. Variants are interleaved in short rounds (their order rotating) so that a drift of
 * the machine hits all alike; each rate is the median of its rounds, and each ratio the median of the rounds' own
 * ratios, with a bootstrap interval for idem / ShedLock JDBC. Run it on a quiet machine (it prints the load averages):
 * {@code mvn -B -q -Pbench -pl idem-benchmarks -am verify -DskipTests -Dbench.mainClass=dev.idem.benchmarks.locks.LockBenchmark}.
 */
public final class LockBenchmark {

  private static final int ROUNDS = Integer.getInteger("idem.bench.lockRounds", 20);
  private static final long ROUND_MILLIS = Long.getLong("idem.bench.lockRoundMillis", 500);
  private static final int BOOTSTRAP_SAMPLES = 10_000;
  /**
   * Warm-up per variant, in three interleaved passes: on two cores, C2 compiling the JDBC drivers' and the pool's
   * paths takes CPU from the measured threads for several seconds (a 1.5 s warm-up left the first rounds at five
   * times the steady state's CPU per cycle).
   */
  private static final long WARMUP_MILLIS = Long.getLong("idem.bench.lockWarmupMillis", 6_000);
  private static final Duration AT_MOST = Duration.ofSeconds(30);

  /** One lock cycle: take the lock {@code name}, release it; false if it was not taken. */
  interface Cycle {
    boolean run(String name);
  }

  record Variant(String name, Cycle cycle) {}

  private LockBenchmark() {}

  public static void main(String[] args) throws Exception {
    System.out.println("Load averages before: " + loadAverages());
    System.out.println("Lettuce's transport (RedisLockProvider's column): " + (io.lettuce.core.resource.EpollProvider
        .isAvailable() ? "Netty native epoll" : "Java NIO"));
    List<String> rows = new ArrayList<>();
    for (String name : System.getProperty("idem.bench.databases", "PostgreSQL,MariaDB").split(",")) {
      TestDatabase database = TestDatabase.of(name.trim());
      try (BenchDatabase bench = BenchDatabase.open(database)) {
        rows.addAll(measure(bench));
      }
    }
    System.out.println();
    System.out.println("| database | threads | idem LockProvider | idem runSingleFlight | ShedLock JDBC | ShedLock"
        + " usingDbTime() | idem / ShedLock (95% interval) | idem / ShedLock usingDbTime() | idem RedisLockProvider |"
        + " floor: two UPDATEs by hand | idem / floor (95% interval) | ShedLock JDBC / floor (95% interval) |");
    System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    rows.forEach(System.out::println);
    System.out.println();
    System.out.println("Load averages after: " + loadAverages());
  }

  private static List<String> measure(BenchDatabase bench) throws Exception {
    DataSource dataSource = bench.dataSource();
    IdemRuntime runtime = IdemRuntime.builder().dataSource(dataSource).build();
    runtime.createSchema();
    String timestamp = bench.database() == TestDatabase.MARIADB ? "TIMESTAMP(3)" : "TIMESTAMP";
    bench.execute("CREATE TABLE IF NOT EXISTS shedlock (name VARCHAR(64) NOT NULL, lock_until " + timestamp
        + " NOT NULL, locked_at " + timestamp + " NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
    LockProvider idem = runtime.lockProvider();
    net.javacrumbs.shedlock.core.LockProvider shedLock = new JdbcLockProvider(dataSource);
    net.javacrumbs.shedlock.core.LockProvider shedLockDbTime = new JdbcTemplateLockProvider(
        JdbcTemplateLockProvider.Configuration.builder().withJdbcTemplate(new JdbcTemplate(dataSource))
            .usingDbTime().build());
    String redisPrefix = "idem-bench-lock:" + java.util.UUID.randomUUID().toString().substring(0, 8) + ":";
    RedisLockProvider redis = RedisLockProvider.builder().keyPrefix(redisPrefix)
        .connect(RedisURI.create(System.getProperty("idem.bench.redis", "redis://127.0.0.1:6379")));
    TwoUpdateFloor floor = new TwoUpdateFloor(dataSource, AT_MOST);
    List<Variant> variants = List.of(
        new Variant("idem LockProvider", name -> {
          Optional<LockLease> lease = idem.tryAcquire(name, AT_MOST);
          lease.ifPresent(held -> idem.release(held, Duration.ZERO));
          return lease.isPresent();
        }),
        new Variant("idem runSingleFlight", name -> runtime.runSingleFlight(name, AT_MOST, Duration.ZERO, () -> { })),
        new Variant("ShedLock JDBC", name -> shedLockCycle(shedLock, name)),
        new Variant("ShedLock usingDbTime()", name -> shedLockCycle(shedLockDbTime, name)),
        new Variant("idem RedisLockProvider", name -> {
          Optional<LockLease> lease = redis.tryAcquire(name, AT_MOST);
          lease.ifPresent(held -> redis.release(held, Duration.ZERO));
          return lease.isPresent();
        }),
        new Variant("floor: two UPDATEs by hand", floor::cycle));
    List<String> rows = new ArrayList<>();
    for (String count : System.getProperty("idem.bench.lockThreads", "1,8").split(",")) {
      int threads = Integer.parseInt(count.trim());
      double[][] rates = new double[variants.size()][ROUNDS];
      for (int pass = 0; pass < 3; pass++) {
        for (Variant variant : variants) {
          run(variant, threads, WARMUP_MILLIS / 3); // JIT, pool and the rows of every name
        }
      }
      for (int round = 0; round < ROUNDS; round++) {
        // Rotate the order: no variant always follows another (a checkpoint's flush storm lands on all alike).
        for (int i = 0; i < variants.size(); i++) {
          int v = (i + round) % variants.size();
          rates[v][round] = run(variants.get(v), threads, ROUND_MILLIS);
        }
      }
      double[] medians = Arrays.stream(rates).mapToDouble(LockBenchmark::median).toArray();
      // The verdict is the median of each round's ratio: the two rates of one round are seconds apart, while the
      // machine's fsync latency drifts over tens of seconds, so the rounds' own rates spread far more than their ratio.
      double[] vsShedLock = ratios(rates[0], rates[2]);
      double[] vsDbTime = ratios(rates[0], rates[3]);
      double[] interval = bootstrapMedianInterval(vsShedLock);
      // Against the floor (two UPDATEs by hand): how far each library is from the least a durable cycle sends.
      double[] idemVsFloor = ratios(rates[0], rates[5]);
      double[] shedLockVsFloor = ratios(rates[2], rates[5]);
      double[] idemFloorInterval = bootstrapMedianInterval(idemVsFloor);
      double[] shedLockFloorInterval = bootstrapMedianInterval(shedLockVsFloor);
      rows.add(String.format(Locale.ROOT, "| %s | %d | %,.0f/s | %,.0f/s | %,.0f/s | %,.0f/s | %.2f× (%.2f–%.2f) |"
          + " %.2f× | %,.0f/s | %,.0f/s | %.2f× (%.2f–%.2f) | %.2f× (%.2f–%.2f) |", bench.database().displayName(),
          threads, medians[0], medians[1], medians[2], medians[3], median(vsShedLock), interval[0], interval[1],
          median(vsDbTime), medians[4], medians[5], median(idemVsFloor), idemFloorInterval[0], idemFloorInterval[1],
          median(shedLockVsFloor), shedLockFloorInterval[0], shedLockFloorInterval[1]));
      System.out.println(rows.get(rows.size() - 1) + "   ratios to ShedLock JDBC per round: "
          + Arrays.toString(Arrays.stream(vsShedLock).map(r -> Math.round(r * 100) / 100.0).toArray()));
    }
    runtime.close();
    removeKeys(redis, variants);
    redis.close();
    return rows;
  }

  /** The Redis subject's keys: every thread's lock and fencing counter (the names {@link #run} uses). */
  private static void removeKeys(RedisLockProvider redis, List<Variant> variants) {
    RedisClient client = RedisClient.create(System.getProperty("idem.bench.redis", "redis://127.0.0.1:6379"));
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      for (Variant variant : variants) {
        for (int t = 0; t < 8; t++) {
          String name = threadName(variant, t);
          connection.sync().del(redis.lockKey(name), redis.fenceKey(name));
        }
      }
    } finally {
      client.shutdown();
    }
  }

  private static String threadName(Variant variant, int thread) {
    return "bench-" + variant.name().replace(' ', '-').replace("(", "").replace(")", "") + "-" + thread;
  }

  private static boolean shedLockCycle(net.javacrumbs.shedlock.core.LockProvider provider, String name) {
    Optional<SimpleLock> lock = provider.lock(new LockConfiguration(Instant.now(), name, AT_MOST, Duration.ZERO));
    lock.ifPresent(SimpleLock::unlock);
    return lock.isPresent();
  }

  /** @return lock cycles per second over {@code millis}, {@code threads} threads each on a name of its own */
  private static double run(Variant variant, int threads, long millis) throws InterruptedException {
    LongAdder cycles = new LongAdder();
    LongAdder missed = new LongAdder();
    AtomicBoolean stop = new AtomicBoolean();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      String name = threadName(variant, t);
      Thread worker = new Thread(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          return;
        }
        while (!stop.get()) {
          if (variant.cycle().run(name)) {
            cycles.increment();
          } else {
            missed.increment();
          }
        }
      });
      worker.start();
      workers.add(worker);
    }
    long begin = System.nanoTime();
    long jvmCpuBefore = jvmCpuNanos();
    long[] machineBefore = machineCpuTicks();
    start.countDown();
    Thread.sleep(millis);
    stop.set(true);
    for (Thread worker : workers) {
      worker.join();
    }
    double seconds = (System.nanoTime() - begin) / 1e9;
    if (Boolean.getBoolean("idem.bench.lockCpu") && cycles.sum() > 0) {
      long[] machineAfter = machineCpuTicks();
      double busyMicros = (machineAfter[0] - machineBefore[0]) * 1e6 / 100; // USER_HZ
      double idleMicros = (machineAfter[1] - machineBefore[1]) * 1e6 / 100;
      System.out.printf(Locale.ROOT, "  %-24s %d threads: %,8.0f/s, CPU per cycle: benchmark JVM %5.0f µs, whole"
          + " machine %5.0f µs busy, %5.0f µs idle%n", variant.name(), threads, cycles.sum() / seconds,
          (jvmCpuNanos() - jvmCpuBefore) / 1e3 / cycles.sum(), busyMicros / cycles.sum(),
          idleMicros / cycles.sum());
    }
    if (missed.sum() > 0) {
      // Seen with ShedLock's application-time provider: its unlock writes the JVM's now, which the next lock's
      // "lock_until <= now" may not yet reach at the database's timestamp precision. Only won cycles count.
      System.out.println(variant.name() + ", " + threads + " threads: " + missed.sum() + " attempts on a lock of"
          + " its own did not get it (" + cycles.sum() + " did)");
    }
    return cycles.sum() / seconds;
  }

  private static long jvmCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** Busy and idle ticks of the whole machine since boot, from /proc/stat (zeros where there is none). */
  private static long[] machineCpuTicks() {
    try {
      String[] fields = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/stat")).get(0).trim()
          .split("\\s+");
      long busy = 0;
      for (int i = 1; i < fields.length; i++) {
        if (i != 4 && i != 5) { // idle, iowait
          busy += Long.parseLong(fields[i]);
        }
      }
      return new long[] {busy, Long.parseLong(fields[4]) + Long.parseLong(fields[5])};
    } catch (java.io.IOException | RuntimeException e) {
      return new long[2];
    }
  }

  private static double[] ratios(double[] numerators, double[] denominators) {
    double[] ratios = new double[numerators.length];
    for (int i = 0; i < ratios.length; i++) {
      ratios[i] = numerators[i] / denominators[i];
    }
    return ratios;
  }

  /** The 95% percentile-bootstrap interval of the median (rounds resampled with replacement, fixed seed). */
  private static double[] bootstrapMedianInterval(double[] values) {
    java.util.Random random = new java.util.Random(24);
    double[] medians = new double[BOOTSTRAP_SAMPLES];
    double[] sample = new double[values.length];
    for (int b = 0; b < BOOTSTRAP_SAMPLES; b++) {
      for (int i = 0; i < sample.length; i++) {
        sample[i] = values[random.nextInt(values.length)];
      }
      medians[b] = median(sample);
    }
    Arrays.sort(medians);
    return new double[] {medians[(int) (BOOTSTRAP_SAMPLES * 0.025)], medians[(int) (BOOTSTRAP_SAMPLES * 0.975)]};
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int middle = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  }

  private static String loadAverages() {
    try {
      return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).strip();
    } catch (java.io.IOException e) {
      return String.valueOf(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
  }
}
