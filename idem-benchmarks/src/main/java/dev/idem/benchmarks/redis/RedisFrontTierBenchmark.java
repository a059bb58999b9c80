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

  private record Result(String name, int calls, double seconds, long roundTrips, long connections, long inFlight) {
    double callsPerSecond() {
      return calls / seconds;
    }

    double roundTripsPerCall() {
      return (double) roundTrips / calls;
    }

    String row() {
      return String.format("| %s | %d | %.0f | %.2f | %.2f | %d |", name, calls, callsPerSecond(),
          roundTripsPerCall(), (double) connections / calls, inFlight);
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
      System.out.println("| variant | calls | calls/s | DB round trips/call | connections/call | told in progress |");
      System.out.println("| --- | --- | --- | --- | --- | --- |");
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
      System.out.println();
      System.out.println("| consumer (batches of 100, 10% redelivered) | messages | messages/s | DB round trips/message"
          + " | connections/message | redelivered skipped |");
      System.out.println("| --- | --- | --- | --- | --- | --- |");
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
    AtomicInteger next = new AtomicInteger();
    AtomicLong inFlight = new AtomicLong();
    CountingDataSource.Counts before = counting.counts();
    ExecutorService threads = Executors.newFixedThreadPool(THREADS);
    long start = System.nanoTime();
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        running.add(threads.submit(() -> {
          for (int i = next.getAndIncrement(); i < calls.size(); i = next.getAndIncrement()) {
            try {
              orders.place(calls.get(i), "sku-1", 2);
            } catch (IdempotencyInProgressException e) {
              inFlight.incrementAndGet(); // answered (a 409 with Retry-After over HTTP)
            } catch (java.sql.SQLException e) {
              throw new IllegalStateException(e);
            }
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
    CountingDataSource.Counts used = counting.counts().minus(before);
    long roundTrips = used.statements() + used.commits() + used.rollbacks();
    Result result = new Result(name, calls.size(), seconds, roundTrips, used.connections(), inFlight.get());
    System.out.println(result.row() + (tier == null ? "" : "  " + TIER_COUNTS.sinceLast()));
    return result;
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
      AtomicInteger next = new AtomicInteger();
      ExecutorService threads = Executors.newFixedThreadPool(THREADS);
      long start = System.nanoTime();
      try {
        List<Future<?>> running = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
          running.add(threads.submit(() -> {
            for (int i = next.getAndIncrement(); i < calls; i = next.getAndIncrement()) {
              notifications.notify("n-" + i, "hello");
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
      if (unused.connectionsObtained() != 0) {
        throw new IllegalStateException("a Redis-only command asked the database");
      }
      return new Result("Redis-only command, first calls", calls, seconds, 0, 0, 0);
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
    CountingDataSource.Counts used = counting.counts().minus(before);
    long roundTrips = used.statements() + used.commits() + used.rollbacks();
    Result result = new Result(name, (int) messages.get(), seconds, roundTrips, used.connections(),
        messages.get() - handled.get());
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
