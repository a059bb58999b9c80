package dev.idem.benchmarks.redis;

import dev.idem.benchmarks.jmh.BenchDatabase;
import dev.idem.redis.RedisFrontTier;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyListener;
import dev.idem.runtime.IdempotencyInProgressException;
import dev.idem.testing.CountingDataSource;
import dev.idem.testing.TestDatabase;
import io.lettuce.core.RedisURI;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The duplicate-heavy workload of issue 23 on PostgreSQL: every key sent 10 times, shuffled, over 8 threads, with
 * and without the Redis front tier, in one run; throughput and database round trips (statements, commits and
 * rollbacks counted by {@link CountingDataSource}) per call. The per-JVM result cache is off in both variants, so
 * that every retry behaves as if it reached another node. Then a replay-only pass (every key completed) against
 * {@code redis-benchmark -t set -c 8}'s SET rate measured in the same run, as the floor of what a Redis-backed call
 * can do here; Redis-only commands (first calls: claim, body, compare-and-set completion) against the same floor;
 * and a consumer of batches of 100 with 10% redeliveries: database only, Redis in front, Redis in front with the
 * Bloom prefilter. Prints the load averages before and after: run it on a quiet machine.
 *
 * <p>{@code mvn -q -Pbench -pl idem-benchmarks -am verify -DskipTests
 * -Dbench.mainClass=dev.idem.benchmarks.redis.RedisFrontTierBenchmark}; {@code idem.bench.redisKeys} (distinct
 * keys, default 3000), {@code idem.bench.redisWarmUpKeys} (distinct keys of each warm-up pass, default 1000),
 * {@code idem.bench.redisBatches} (consumer batches, default 300).
 */
public final class RedisFrontTierBenchmark {

  private static final int THREADS = 8;
  private static final int COPIES = 10;

  /**
   * What the tier answered and what Redis did, per variant: a fallback (Redis did not answer in time, or the circuit
   * was open) sends the call to the database, so a loaded machine shows up here rather than only in the throughput.
   */
  private static final class TierCounts implements IdempotencyListener {
    final LongAdder hits = new LongAdder();
    final LongAdder misses = new LongAdder();
    final LongAdder fallbacks = new LongAdder();
    final LongAdder redisErrors = new LongAdder();
    final LongAdder circuitOpened = new LongAdder();

    @Override
    public void frontTierHit(String scope, String key) {
      hits.increment();
    }

    @Override
    public void frontTierMiss(String scope, String key) {
      misses.increment();
    }

    @Override
    public void frontTierFallback(String scope, String key) {
      fallbacks.increment();
    }

    @Override
    public void frontTierCommand(String operation, Throwable failure, long elapsedNanos) {
      if (failure != null) {
        redisErrors.increment();
      }
    }

    @Override
    public void frontTierCircuit(boolean open) {
      if (open) {
        circuitOpened.increment();
      }
    }

    /** The counts since the last call, which resets them. */
    String sinceLast() {
      return String.format("front tier: %d hits, %d misses, %d fallbacks; Redis: %d failed commands, circuit"
          + " opened %d times", hits.sumThenReset(), misses.sumThenReset(), fallbacks.sumThenReset(),
          redisErrors.sumThenReset(), circuitOpened.sumThenReset());
    }
  }

  private static final TierCounts TIER_COUNTS = new TierCounts();

  /**
   * The whole machine's CPU over an interval, from {@code /proc/stat}'s first line (all cores; clock ticks of 10 ms):
   * busy is user + nice + system + irq + softirq + steal, idle is idle + iowait. Redis, PostgreSQL, the kernel's
   * loopback and this JVM share the two cores, so this, not the JVM's own CPU, is what a call costs here.
   */
  private record MachineCpu(long busyTicks, long idleTicks) {
    static MachineCpu now() {
      try {
        String[] fields = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
        long[] t = new long[9];
        for (int i = 0; i < 9 && i + 1 < fields.length; i++) {
          t[i] = Long.parseLong(fields[i + 1]);
        }
        return new MachineCpu(t[0] + t[1] + t[2] + t[5] + t[6] + t[7], t[3] + t[4]);
      } catch (IOException | RuntimeException e) {
        return new MachineCpu(0, 0);
      }
    }

    MachineCpu since(MachineCpu before) {
      return new MachineCpu(busyTicks - before.busyTicks, idleTicks - before.idleTicks);
    }

    double busySeconds() {
      return busyTicks / 100.0;
    }

    double busyShare() {
      return busyTicks + idleTicks == 0 ? 0 : (double) busyTicks / (busyTicks + idleTicks);
    }
  }

  private record Result(String name, int calls, double seconds, long roundTrips, long connections, long inFlight,
                        MachineCpu cpu) {
    /** Machine CPU (all cores) per call, in microseconds. */
    double cpuMicrosPerCall() {
      return cpu.busySeconds() * 1e6 / calls;
    }

    double callsPerSecond() {
      return calls / seconds;
    }

    double roundTripsPerCall() {
      return (double) roundTrips / calls;
    }

    String row() {
      return String.format("| %s | %d | %.0f | %.2f | %.2f | %d | %.0f | %.0f%% |", name, calls, callsPerSecond(),
          roundTripsPerCall(), (double) connections / calls, inFlight, cpuMicrosPerCall(), cpu.busyShare() * 100);
    }
  }

  private RedisFrontTierBenchmark() {}

  public static void main(String[] args) throws Exception {
    int keys = Integer.getInteger("idem.bench.redisKeys", 3000);
    System.out.println("load average before: " + loadAverage());
    // Lettuce takes Netty's native epoll transport when it is on the class path (this module's is), unless
    // -Dio.lettuce.core.epoll=false: a client round trip costs markedly less CPU on it (docs/redis.md).
    System.out.println("Lettuce's transport: " + (io.lettuce.core.resource.EpollProvider.isAvailable()
        ? "Netty native epoll" : "Java NIO"));
    List<Result> results = new ArrayList<>();
    String prefix = "idem-bench:" + UUID.randomUUID().toString().substring(0, 8) + ":";
    try (BenchDatabase database = BenchDatabase.open(TestDatabase.POSTGRESQL);
         RedisFrontTier tier = RedisFrontTier.builder().keyPrefix(prefix).listener(TIER_COUNTS)
             .connect(RedisURI.create("redis://127.0.0.1:6379"))) {
      IdemRuntime.builder().dataSource(database.dataSource()).build().createSchema();
      database.execute("ANALYZE");
      // Warm-up of both paths (first calls and replays: the replay path through Lettuce and Netty needs some 10^4
      // calls before the JIT has compiled it; with 3,000 calls it ran at a third of its warm rate), then the measured
      // runs, each on keys of its own.
      int warmUpKeys = Integer.getInteger("idem.bench.redisWarmUpKeys", 1000);
      run("warm-up without", database, null, warmUpKeys, "w0");
      run("warm-up with", database, tier, warmUpKeys, "w1");
      run("warm-up with, replays only", database, tier, warmUpKeys, "w1");
      database.execute("ANALYZE");
      results.add(run("database only", database, null, keys, "a"));
      results.add(run("Redis front tier", database, tier, keys, "b"));
      results.add(run("Redis front tier, replays only", database, tier, keys, "b"));
      // The same number of first calls alone, each key once: what the workload's first calls cost by themselves.
      // No front tier can make a first call cheaper than the database makes it (it adds its mark and its outcome's
      // write to it), so the database-only run's time over this time is the most any front tier could gain here.
      results.add(run("database only, first calls only (each key once)", database, null, keys, "f0", 1));
      results.add(run("Redis front tier, first calls only (each key once)", database, tier, keys, "f1", 1));
      Result redisOnly = redisOnly(prefix, keys * 3);
      // A bare Lettuce round trip of the tier's own command, on the tier's own value size, from the same 8 threads
      // sharing one connection: what one Redis round trip costs this machine, with no idem code around it.
      int valueLength = storedValueLength(prefix, "b-1");
      Result lettuceFresh = lettuceAlone("Lettuce alone: SET NX PX GET, fresh keys (a mark)", prefix + "lf:",
          keys * 10, valueLength, false);
      Result lettuceExisting = lettuceAlone("Lettuce alone: SET NX PX GET, existing keys (a replay's read)",
          prefix + "le:", keys * 10, valueLength, true);
      results.add(lettuceFresh);
      results.add(lettuceExisting);
      List<Result> consumers = new ArrayList<>();
      int batches = Integer.getInteger("idem.bench.redisBatches", 300);
      consumers.add(consume("consumer, database only", database, null, batches, "c0"));
      try (RedisFrontTier consumerTier = RedisFrontTier.builder().keyPrefix(prefix)
               .connect(RedisURI.create("redis://127.0.0.1:6379"));
           RedisFrontTier bloomTier = RedisFrontTier.builder().keyPrefix(prefix)
               .bloomPrefilter(batches * 100L, 0.01, java.time.Duration.ofMinutes(10))
               .connect(RedisURI.create("redis://127.0.0.1:6379"))) {
        consumers.add(consume("consumer, Redis in front", database, consumerTier, batches, "c1"));
        consumers.add(consume("consumer, Redis in front + Bloom", database, bloomTier, batches, "c2"));
      }
      double setRate = redisBenchmarkSetRate();
      System.out.println();
      System.out.println("| variant | calls | calls/s | DB round trips/call | connections/call | told in progress"
          + " | machine CPU µs/call | machine busy |");
      System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- |");
      results.forEach(r -> System.out.println(r.row()));
      Result without = results.get(0);
      Result with = results.get(1);
      Result replays = results.get(2);
      System.out.printf("%nthroughput with the tier / without: %.2fx%n", with.callsPerSecond()
          / without.callsPerSecond());
      System.out.printf("database round trips per call without / with: %.2fx%n", without.roundTripsPerCall()
          / Math.max(1e-9, with.roundTripsPerCall()));
      Result firstCallsOnly = results.get(3);
      Result firstCallsWithTier = results.get(4);
      double firstCallSeconds = firstCallsOnly.seconds() * without.calls() / COPIES / firstCallsOnly.calls();
      System.out.printf("the most any front tier could gain on this workload (the database-only run's %.2f s over"
          + " the %.2f s its %d first calls take alone): %.2fx; first calls with the tier / without: %.2fx%n",
          without.seconds(), firstCallSeconds, without.calls() / COPIES, without.seconds() / firstCallSeconds,
          firstCallsWithTier.callsPerSecond() / firstCallsOnly.callsPerSecond());
      System.out.printf("redis-benchmark -t set -c 8: %.0f SET/s; replays from the tier: %.0f calls/s (%.2fx)%n",
          setRate, replays.callsPerSecond(), replays.callsPerSecond() / setRate);
      System.out.println(redisOnly.row());
      System.out.printf("Redis-only first calls (claim + completion, 8 threads): %.0f calls/s, %.2fx redis-benchmark's"
          + " SET rate (target >= 0.5x)%n", redisOnly.callsPerSecond(), redisOnly.callsPerSecond() / setRate);
      printBounds(without, replays, firstCallsOnly, redisOnly, lettuceFresh, lettuceExisting, setRate, valueLength);
      System.out.println();
      System.out.println("| consumer (batches of 100, 10% redelivered) | messages | messages/s | DB round trips/message"
          + " | connections/message | redelivered skipped | machine CPU µs/message | machine busy |");
      System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- |");
      consumers.forEach(r -> System.out.println(r.row()));
      System.out.printf("messages/s with Redis in front / database only: %.2fx; with the Bloom prefilter: %.2fx%n",
          consumers.get(1).callsPerSecond() / consumers.get(0).callsPerSecond(),
          consumers.get(2).callsPerSecond() / consumers.get(0).callsPerSecond());
    } finally {
      cleanRedis(prefix);
    }
    System.out.println("load average after: " + loadAverage());
  }

  private static Result run(String name, BenchDatabase database, RedisFrontTier tier, int keys, String keyPrefix)
      throws Exception {
    return run(name, database, tier, keys, keyPrefix, COPIES);
  }

  private static Result run(String name, BenchDatabase database, RedisFrontTier tier, int keys, String keyPrefix,
      int copies) throws Exception {
    CountingDataSource counting = new CountingDataSource(database.dataSource());
    IdemRuntime.Builder builder = IdemRuntime.builder().dataSource(counting).resultCache(false);
    if (tier != null) {
      builder.frontTier(tier).listener(TIER_COUNTS);
    }
    TIER_COUNTS.sinceLast();
    IdemRuntime runtime = builder.build();
    AtomicLong ids = new AtomicLong(System.nanoTime());
    RedisOrders orders = new RedisOrders_Idempotent((requestId, sku, quantity) -> {
      long id = ids.incrementAndGet();
      try (PreparedStatement insert = runtime.currentConnection().prepareStatement(
          "INSERT INTO orders (id, customer_id, sku, quantity, total_cents) VALUES (?, ?, ?, ?, ?)")) {
        insert.setLong(1, id);
        insert.setString(2, requestId);
        insert.setString(3, sku);
        insert.setInt(4, quantity);
        insert.setLong(5, quantity * 1250L);
        insert.executeUpdate();
      }
      return id;
    }, runtime);
    List<String> calls = new ArrayList<>(keys * copies);
    for (int k = 0; k < keys; k++) {
      for (int c = 0; c < copies; c++) {
        calls.add(keyPrefix + "-" + k);
      }
    }
    Collections.shuffle(calls, new Random(23));
    AtomicLong inFlight = new AtomicLong();
    CountingDataSource.Counts before = counting.counts();
    Timed timed = onThreads(calls.size(), i -> {
      try {
        orders.place(calls.get(i), "sku-1", 2);
      } catch (IdempotencyInProgressException e) {
        inFlight.incrementAndGet(); // answered (a 409 with Retry-After over HTTP)
      }
    });
    CountingDataSource.Counts used = counting.counts().minus(before);
    long roundTrips = used.statements() + used.commits() + used.rollbacks();
    Result result = new Result(name, calls.size(), timed.seconds(), roundTrips, used.connections(), inFlight.get(),
        timed.cpu());
    System.out.println(result.row() + (tier == null ? "" : "  " + TIER_COUNTS.sinceLast()));
    return result;
  }

  /**
   * What this machine allows any front tier on Lettuce, from the same run: CPU is the bound when the machine is busy
   * throughout (the "machine busy" column), and a call with the tier cannot use less of it than its parts do
   * without idem: a first call what the database-only first call costs plus two Redis round trips (its mark, and its
   * outcome's write after the commit), a replay one round trip. The round trips are priced at the bare Lettuce
   * command's machine CPU measured above.
   */
  private static void printBounds(Result without, Result replays, Result firstCallsOnly, Result redisOnly,
                                  Result lettuceFresh, Result lettuceExisting, double setRate, int valueLength) {
    int cores = Runtime.getRuntime().availableProcessors();
    long firstCalls = without.calls() / COPIES;
    long replayCalls = without.calls() - firstCalls;
    double firstCpu = firstCallsOnly.cpuMicrosPerCall();
    double markCpu = lettuceFresh.cpuMicrosPerCall();
    double readCpu = lettuceExisting.cpuMicrosPerCall();
    System.out.printf("%nbounds on this machine (%d cores; stored outcome %d characters):%n", cores, valueLength);
    System.out.printf("  machine CPU per call: database-only first call %.0f µs; bare Lettuce round trip %.0f µs"
        + " (fresh key) / %.0f µs (existing key); idem's replay from the tier %.0f µs (%.2fx the bare read)%n",
        firstCpu, markCpu, readCpu, replays.cpuMicrosPerCall(), replays.cpuMicrosPerCall() / readCpu);
    double minimumCpuSeconds = (firstCalls * (firstCpu + 2 * markCpu) + replayCalls * readCpu) / 1e6;
    double cpuBound = without.seconds() / (minimumCpuSeconds / cores);
    double cpuBoundWithoutMarks = without.seconds() / ((firstCalls * firstCpu + replayCalls * readCpu) / 1e6 / cores);
    System.out.printf("  throughput with any Lettuce-based tier / without, at most (CPU): %.2fx (%d first calls x"
        + " (%.0f + 2 x %.0f µs) + %d replays x %.0f µs = %.2f s of CPU over %d cores, against the database-only"
        + " run's %.2f s); even with first calls at no Redis cost: %.2fx; target 3x%n", cpuBound, firstCalls,
        firstCpu, markCpu, replayCalls, readCpu, minimumCpuSeconds, cores, without.seconds(), cpuBoundWithoutMarks);
    double redisOnlyCpuBound = cores * 1e6 / (markCpu + readCpu);
    double redisOnlyLatencyBound = lettuceFresh.callsPerSecond() / 2;
    System.out.printf("  Redis-only first calls (two round trips each: claim, completion), at most %.0f calls/s by CPU"
        + " and %.0f calls/s by the bare round trips' rate from 8 threads: %.2fx / %.2fx of redis-benchmark's SET"
        + " rate (target 0.5x); measured %.0f calls/s, %.2fx of the lower bound%n", redisOnlyCpuBound,
        redisOnlyLatencyBound, redisOnlyCpuBound / setRate, redisOnlyLatencyBound / setRate,
        redisOnly.callsPerSecond(), redisOnly.callsPerSecond() / Math.min(redisOnlyCpuBound, redisOnlyLatencyBound));
  }

  /** The length of the value the tier stored for one key of a run (its encoded outcome), to price a bare read. */
  private static int storedValueLength(String prefix, String key) {
    io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create("redis://127.0.0.1:6379");
    try (var connection = client.connect()) {
      var redis = connection.sync();
      io.lettuce.core.ScanCursor cursor = io.lettuce.core.ScanCursor.INITIAL;
      io.lettuce.core.ScanArgs match = io.lettuce.core.ScanArgs.Builder.matches(prefix + "*|" + key + "}").limit(1000);
      do {
        io.lettuce.core.KeyScanCursor<String> page = redis.scan(cursor, match);
        for (String found : page.getKeys()) {
          String value = redis.get(found);
          if (value != null) {
            return value.length();
          }
        }
        cursor = page;
      } while (!cursor.isFinished());
      throw new IllegalStateException("the tier stored nothing for " + key);
    } finally {
      client.shutdown();
    }
  }

  /**
   * {@code SET key value NX PX 600000 GET} from 8 threads on one Lettuce connection, as the tier sends it; with
   * {@code existing}, on keys written beforehand, so that each command returns the stored value as a replay's read
   * does. A warm-up of the same size runs first, on keys of its own.
   */
  private static Result lettuceAlone(String name, String prefix, int commands, int valueLength, boolean existing)
      throws Exception {
    io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create("redis://127.0.0.1:6379");
    try (var connection = client.connect()) {
      var redis = connection.sync();
      String value = "C" + "x".repeat(Math.max(0, valueLength - 1));
      io.lettuce.core.SetArgs args = io.lettuce.core.SetArgs.Builder.nx().px(600_000);
      Result result = null;
      for (String pass : new String[] {"w", "m"}) {
        if (existing) {
          var async = connection.async();
          List<io.lettuce.core.RedisFuture<String>> writes = new ArrayList<>();
          for (int i = 0; i < commands; i++) {
            writes.add(async.set(prefix + pass + i, value, io.lettuce.core.SetArgs.Builder.px(600_000)));
          }
          for (io.lettuce.core.RedisFuture<String> write : writes) {
            write.get(1, TimeUnit.MINUTES);
          }
        }
        Timed timed = onThreads(commands, i -> {
          String found = redis.setGet(prefix + pass + i, value, args);
          if ((found != null) != existing) {
            throw new IllegalStateException("unexpected reply for " + prefix + pass + i + ": " + found);
          }
        });
        result = new Result(name, commands, timed.seconds(), 0, 0, 0, timed.cpu());
      }
      System.out.println(result.row());
      return result;
    } finally {
      client.shutdown();
    }
  }

  /** One call of a measured loop, by its index. */
  @FunctionalInterface
  private interface Call {
    void run(int index) throws Exception;
  }

  /** A measured loop's wall-clock time and the machine's CPU during it. */
  private record Timed(double seconds, MachineCpu cpu) {}

  /** Calls 0 to {@code count - 1} over {@link #THREADS} threads, each thread taking the next index. */
  private static Timed onThreads(int count, Call call) throws Exception {
    AtomicInteger next = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(THREADS);
    MachineCpu cpuBefore = MachineCpu.now();
    long start = System.nanoTime();
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        running.add(threads.submit(() -> {
          for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
            call.run(i);
          }
          return null;
        }));
      }
      for (Future<?> future : running) {
        future.get(30, TimeUnit.MINUTES);
      }
    } finally {
      threads.shutdownNow();
    }
    return new Timed((System.nanoTime() - start) / 1e9, MachineCpu.now().since(cpuBefore));
  }

  /** Redis-only first calls over 8 threads: each key once (claim, body, compare-and-set completion). */
  private static Result redisOnly(String prefix, int calls) throws Exception {
    try (dev.idem.redis.RedisRecordStore store = dev.idem.redis.RedisRecordStore.builder().keyPrefix(prefix)
        .connect(RedisURI.create("redis://127.0.0.1:6379"))) {
      CountingDataSource unused = new CountingDataSource(new org.h2.jdbcx.JdbcDataSource());
      IdemRuntime runtime = IdemRuntime.builder().dataSource(unused).dialect(dev.idem.runtime.Dialect.H2)
          .recordStore(store).build();
      RedisOnlyNotifications notifications = new RedisOnlyNotifications_Idempotent((id, text) -> id, runtime);
      // Warm-up (claim, completion and their Lua script through Lettuce and Netty, until the JIT compiled them): with
      // a single call before, the measured calls ran cold.
      int warmUpCalls = Integer.getInteger("idem.bench.redisWarmUpKeys", 1000) * COPIES;
      for (int i = 0; i < warmUpCalls; i++) {
        notifications.notify("warm-up-" + i, "x");
      }
      Timed timed = onThreads(calls, i -> notifications.notify("n-" + i, "hello"));
      if (unused.connectionsObtained() != 0) {
        throw new IllegalStateException("a Redis-only command asked the database");
      }
      return new Result("Redis-only command, first calls", calls, timed.seconds(), 0, 0, 0, timed.cpu());
    }
  }

  /**
   * Batches of 100 messages over 4 threads, each thread on its own messages; in every batch after a thread's first,
   * 10 messages are redeliveries of its previous batch (a broker redelivering after a lost acknowledgement).
   */
  private static Result consume(String name, BenchDatabase database, RedisFrontTier tier, int batches,
                                String keyPrefix) throws Exception {
    CountingDataSource counting = new CountingDataSource(database.dataSource());
    IdemRuntime.Builder builder = IdemRuntime.builder().dataSource(counting).resultCache(false);
    if (tier != null) {
      builder.frontTier(tier);
    }
    AtomicLong handled = new AtomicLong();
    RedisPaymentEvents events = new RedisPaymentEvents_Idempotent(messages -> {
      handled.addAndGet(messages.size());
      return messages.size();
    }, builder.build());
    int consumers = 4;
    AtomicInteger next = new AtomicInteger();
    CountingDataSource.Counts before = counting.counts();
    ExecutorService threads = Executors.newFixedThreadPool(consumers);
    AtomicLong messages = new AtomicLong();
    MachineCpu cpuBefore = MachineCpu.now();
    long start = System.nanoTime();
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int t = 0; t < consumers; t++) {
        int consumer = t;
        running.add(threads.submit(() -> {
          int fresh = 0;
          for (int b = next.getAndIncrement(); b < batches; b = next.getAndIncrement()) {
            List<RedisPaymentEvents.Paid> batch = new ArrayList<>(100);
            for (int r = Math.max(0, fresh - 10); r < fresh; r++) {
              batch.add(new RedisPaymentEvents.Paid(keyPrefix + "-" + consumer + "-" + r, r));
            }
            while (batch.size() < 100) {
              batch.add(new RedisPaymentEvents.Paid(keyPrefix + "-" + consumer + "-" + fresh, fresh));
              fresh++;
            }
            events.onPaid(batch);
            messages.addAndGet(batch.size());
          }
          return null;
        }));
      }
      for (Future<?> future : running) {
        future.get(30, TimeUnit.MINUTES);
      }
    } finally {
      threads.shutdownNow();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    MachineCpu cpu = MachineCpu.now().since(cpuBefore);
    CountingDataSource.Counts used = counting.counts().minus(before);
    long roundTrips = used.statements() + used.commits() + used.rollbacks();
    Result result = new Result(name, (int) messages.get(), seconds, roundTrips, used.connections(),
        messages.get() - handled.get(), cpu);
    System.out.println(result.row());
    return result;
  }

  /** {@code redis-benchmark -t set -c 8} against the shared Redis, now, on this machine. */
  private static double redisBenchmarkSetRate() throws IOException, InterruptedException {
    Process process = new ProcessBuilder("redis-benchmark", "-h", "127.0.0.1", "-p", "6379", "-t", "set", "-c", "8",
        "-n", "200000", "-q").redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    process.waitFor(5, TimeUnit.MINUTES);
    System.out.println("redis-benchmark: " + output.trim().replace('\r', '\n').lines()
        .filter(l -> l.contains("requests per second")).reduce((a, b) -> b).orElse(output));
    Matcher rate = Pattern.compile("SET: ([0-9.]+) requests per second").matcher(output);
    String last = null;
    while (rate.find()) {
      last = rate.group(1);
    }
    if (last == null) {
      throw new IllegalStateException("redis-benchmark printed no SET rate: " + output);
    }
    return Double.parseDouble(last);
  }

  /** Removes this run's keys only (SCAN + UNLINK of its prefix). */
  private static void cleanRedis(String prefix) {
    io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create("redis://127.0.0.1:6379");
    try (var connection = client.connect()) {
      var redis = connection.sync();
      io.lettuce.core.ScanCursor cursor = io.lettuce.core.ScanCursor.INITIAL;
      io.lettuce.core.ScanArgs match = io.lettuce.core.ScanArgs.Builder.matches(prefix + "*").limit(1000);
      do {
        io.lettuce.core.KeyScanCursor<String> page = redis.scan(cursor, match);
        if (!page.getKeys().isEmpty()) {
          redis.unlink(page.getKeys().toArray(new String[0]));
        }
        cursor = page;
      } while (!cursor.isFinished());
    } finally {
      client.shutdown();
    }
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }
}
