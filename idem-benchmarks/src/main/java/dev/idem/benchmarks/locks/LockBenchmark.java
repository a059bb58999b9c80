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
 * locks off the database buys; it has no ShedLock counterpart in the ratios.
 * Each thread takes and releases a lock of its own name, so that every attempt wins: the figure is the cost of a
 * lock cycle, not of contention. Variants are interleaved in rounds so that a drift of the machine hits all alike;
 * each figure is the median of its rounds. Run it on a quiet machine (it prints the load averages):
 * {@code mvn -B -q -Pbench -pl idem-benchmarks -am verify -DskipTests -Dbench.mainClass=dev.idem.benchmarks.locks.LockBenchmark}.
 */
public final class LockBenchmark {

  private static final int ROUNDS = Integer.getInteger("idem.bench.lockRounds", 3);
  private static final long ROUND_MILLIS = Long.getLong("idem.bench.lockRoundMillis", 2_000);
  private static final long WARMUP_MILLIS = 1_500;
  private static final Duration AT_MOST = Duration.ofSeconds(30);

  /** One lock cycle: take the lock {@code name}, release it; false if it was not taken. */
  interface Cycle {
    boolean run(String name);
  }

  record Variant(String name, Cycle cycle) {}

  private LockBenchmark() {}

  public static void main(String[] args) throws Exception {
    System.out.println("Load averages before: " + loadAverages());
    List<String> rows = new ArrayList<>();
    for (String name : System.getProperty("idem.bench.databases", "PostgreSQL,MariaDB").split(",")) {
      TestDatabase database = TestDatabase.of(name.trim());
      try (BenchDatabase bench = BenchDatabase.open(database)) {
        rows.addAll(measure(bench));
      }
    }
    System.out.println();
    System.out.println("| database | threads | idem LockProvider | idem runSingleFlight | ShedLock JDBC | ShedLock"
        + " usingDbTime() | idem / ShedLock | idem / ShedLock usingDbTime() | idem RedisLockProvider |");
    System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
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
        }));
    List<String> rows = new ArrayList<>();
    for (int threads : new int[] {1, 8}) {
      double[][] rates = new double[variants.size()][ROUNDS];
      for (Variant variant : variants) {
        run(variant, threads, WARMUP_MILLIS); // warm up JIT, pool and the rows of every name
      }
      for (int round = 0; round < ROUNDS; round++) {
        for (int v = 0; v < variants.size(); v++) {
          rates[v][round] = run(variants.get(v), threads, ROUND_MILLIS);
        }
      }
      double[] medians = Arrays.stream(rates).mapToDouble(LockBenchmark::median).toArray();
      rows.add(String.format(Locale.ROOT, "| %s | %d | %,.0f/s | %,.0f/s | %,.0f/s | %,.0f/s | %.2f× | %.2f× |"
          + " %,.0f/s |", bench.database().displayName(), threads, medians[0], medians[1], medians[2], medians[3],
          medians[0] / medians[2], medians[0] / medians[3], medians[4]));
      System.out.println(rows.get(rows.size() - 1) + "   rounds: " + Arrays.deepToString(rates));
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
    start.countDown();
    Thread.sleep(millis);
    stop.set(true);
    for (Thread worker : workers) {
      worker.join();
    }
    double seconds = (System.nanoTime() - begin) / 1e9;
    if (missed.sum() > 0) {
      // Seen with ShedLock's application-time provider: its unlock writes the JVM's now, which the next lock's
      // "lock_until <= now" may not yet reach at the database's timestamp precision. Only won cycles count.
      System.out.println(variant.name() + ", " + threads + " threads: " + missed.sum() + " attempts on a lock of"
          + " its own did not get it (" + cycles.sum() + " did)");
    }
    return cycles.sum() / seconds;
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static String loadAverages() {
    try {
      return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).strip();
    } catch (java.io.IOException e) {
      return String.valueOf(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
  }
}
