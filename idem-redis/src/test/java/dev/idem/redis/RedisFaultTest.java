package dev.idem.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyListener;
import dev.idem.testing.CountingDataSource;
import dev.idem.testing.DatabaseContract;
import dev.idem.testing.TestDatabase;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Redis taken away, slowed and evicting, on a redis-server of the test's own: no command runs twice, and every call
 * the database can serve succeeds. (On H2: the database is not what is tested here; the contract tests run on
 * PostgreSQL too.)
 */
@Timeout(120)
class RedisFaultTest extends DatabaseContract {

  private final Map<String, AtomicInteger> executionsByKey = new ConcurrentHashMap<>();
  private final List<String> circuit = new CopyOnWriteArrayList<>();
  private final AtomicLong hits = new AtomicLong();
  private final AtomicLong redisFailures = new AtomicLong();

  private final IdempotencyListener listener = new IdempotencyListener() {
    @Override
    public void frontTierHit(String scope, String key) {
      hits.incrementAndGet();
    }

    @Override
    public void frontTierCommand(String operation, Throwable failure, long elapsedNanos) {
      if (failure != null) {
        redisFailures.incrementAndGet();
      }
    }

    @Override
    public void frontTierCircuit(boolean open) {
      circuit.add(open ? "open" : "closed");
    }
  };

  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }

  @Override
  protected void prepare() {
    IdemRuntime.builder().dataSource(database.dataSource()).build().createSchema();
  }

  @BeforeEach
  void clean() {
    database.execute("DELETE FROM idem_record");
    executionsByKey.clear();
    circuit.clear();
    hits.set(0);
    redisFailures.set(0);
  }

  private Orders orders(RedisFrontTier tier, javax.sql.DataSource dataSource) {
    return new Orders_Idempotent(new Orders() {
      @Override
      public String create(String requestId, String sku) {
        executionsByKey.computeIfAbsent(requestId, k -> new AtomicInteger()).incrementAndGet();
        return "order-" + requestId + "-" + sku;
      }

      @Override
      public String charge(String paymentId, long amountCents) {
        executionsByKey.computeIfAbsent(paymentId, k -> new AtomicInteger()).incrementAndGet();
        return "charge-" + paymentId + "-" + amountCents;
      }

      @Override
      public String chargeWaiting(String paymentId, long amountCents) {
        return charge(paymentId, amountCents);
      }
    }, IdemRuntime.builder().dataSource(dataSource).resultCache(false).frontTier(tier).listener(listener).build());
  }

  private void assertNothingRanTwice(int expectedKeys) {
    assertEquals(expectedKeys, executionsByKey.size());
    executionsByKey.forEach((key, count) -> assertEquals(1, count.get(), key + " ran " + count.get() + " times"));
  }

  /** Four callers, each calling its own keys three times in a row, while the main thread does {@code meanwhile}. */
  private void storm(Orders orders, int keysPerCaller, String prefix, Runnable meanwhile) throws Exception {
    ExecutorService callers = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int caller = 0; caller < 4; caller++) {
        int c = caller;
        running.add(callers.submit(() -> {
          for (int i = 0; i < keysPerCaller; i++) {
            String key = prefix + "-" + c + "-" + i;
            for (int attempt = 0; attempt < 3; attempt++) {
              assertEquals("charge-" + key + "-100", orders.charge(key, 100));
            }
          }
          return null;
        }));
      }
      meanwhile.run();
      for (Future<?> future : running) {
        future.get(100, TimeUnit.SECONDS); // a call that failed fails the test here
      }
    } finally {
      callers.shutdownNow();
    }
  }

  @Test
  void redisKilledMidRunAndRestartedEmpty() throws Exception {
    try (PrivateRedis redis = new PrivateRedis().start();
         RedisFrontTier tier = RedisFrontTier.builder().commandTimeout(Duration.ofMillis(200))
             .circuitBreaker(2, Duration.ofMillis(300)).listener(listener).connect(redis.uri())) {
      Orders orders = orders(tier, database.dataSource());
      storm(orders, 25, "before", () -> {});
      assertTrue(hits.get() > 0, "Redis answered retries while up");

      storm(orders, 50, "during", () -> {
        sleepQuietly(50);
        try {
          redis.kill();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      });
      assertTrue(redisFailures.get() > 0);
      assertTrue(circuit.contains("open"), "the circuit opened: " + circuit);

      redis.start(); // empty: every outcome it held is gone
      sleepQuietly(400); // the circuit's open time, then a probe
      hits.set(0);
      storm(orders, 50, "during", () -> {});
      assertEquals(List.of("open", "closed"), circuit.subList(circuit.size() - 2, circuit.size()));
      assertTrue(hits.get() > 0, "after the restart the database's replays were published again and hit");
      assertNothingRanTwice(4 * 25 + 4 * 50);
    }
  }

  @Test
  void aSlowRedisIsTimedOutAndTheDatabaseAnswers() throws Exception {
    try (PrivateRedis redis = new PrivateRedis().start();
         LatencyProxy slow = new LatencyProxy(redis.port());
         RedisFrontTier tier = RedisFrontTier.builder().commandTimeout(Duration.ofMillis(50))
             .circuitBreaker(3, Duration.ofMillis(200)).listener(listener)
             .connect(io.lettuce.core.RedisURI.create("redis://127.0.0.1:" + slow.port()))) {
      Orders orders = orders(tier, database.dataSource());
      slow.delay(400);
      storm(orders, 10, "slow", () -> {});
      assertTrue(circuit.contains("open"), "timeouts opened the circuit: " + circuit);
      assertEquals(0, hits.get());

      slow.delay(0);
      sleepQuietly(300);
      storm(orders, 10, "slow", () -> {});
      assertEquals("closed", circuit.get(circuit.size() - 1), "a probe closed it: " + circuit);
      assertTrue(hits.get() > 0);
      assertNothingRanTwice(4 * 10);
    }
  }

  @Test
  void evictionUnderMaxmemoryFallsThroughToTheDatabase() throws Exception {
    try (PrivateRedis redis = new PrivateRedis("--maxmemory", "4mb", "--maxmemory-policy", "allkeys-lru").start();
         RedisFrontTier tier = RedisFrontTier.builder().listener(listener).connect(redis.uri())) {
      CountingDataSource counted = new CountingDataSource(database.dataSource());
      Orders orders = orders(tier, counted);
      String sku = "x".repeat(8_000);
      int keys = 1_000; // about 8 MB of outcomes into 4 MB (of which an empty server uses about 1)
      for (int i = 0; i < keys; i++) {
        orders.create("evict-" + i, sku);
      }
      counted.reset();
      hits.set(0);
      for (int i = 0; i < keys; i++) {
        assertEquals("order-evict-" + i + "-" + sku, orders.create("evict-" + i, sku));
      }
      long evicted;
      RedisClient client = RedisClient.create(redis.uri());
      try (StatefulRedisConnection<String, String> connection = client.connect()) {
        String stats = connection.sync().info("stats");
        evicted = Long.parseLong(stats.lines().filter(l -> l.startsWith("evicted_keys:")).findFirst()
            .orElseThrow().substring("evicted_keys:".length()).trim());
      } finally {
        client.shutdown();
      }
      assertTrue(evicted > 0, "Redis evicted outcomes");
      assertTrue(counted.connectionsObtained() > 0, "evicted keys were replayed by the database");
      assertTrue(hits.get() > 0, "the keys Redis kept were replayed from it");
      assertNothingRanTwice(keys);
    }
  }

  /**
   * The call's own mark is set; then other keys' failures open the circuit before the call ends, so its publish and
   * its unmark are not even sent. Once Redis answers again, a retry meets that mark: it must be repaired, never taken
   * for a call in flight (it was one: turned away with 409 for the whole lease, though the database holds the outcome).
   */
  @Test
  void aMarkLeftByAnOpenCircuitIsRepairedAndNeverTurnsARetryAway() throws Exception {
    try (PrivateRedis redis = new PrivateRedis().start();
         LatencyProxy slow = new LatencyProxy(redis.port());
         RedisFrontTier tier = RedisFrontTier.builder().commandTimeout(Duration.ofMillis(100))
             .circuitBreaker(1, Duration.ofMillis(300)).listener(listener)
             .connect(io.lettuce.core.RedisURI.create("redis://127.0.0.1:" + slow.port()))) {
      AtomicInteger runs = new AtomicInteger();
      Orders orders = new Orders_Idempotent(new Orders() {
        @Override
        public String create(String requestId, String sku) {
          throw new UnsupportedOperationException();
        }

        @Override
        public String charge(String paymentId, long amountCents) {
          runs.incrementAndGet();
          // Another key's lookup times out while this call runs: the circuit opens.
          slow.delay(400);
          tier.lookupOrMark("other.scope", "other-key", "other-token", Duration.ofSeconds(1));
          slow.delay(0);
          return "charge-" + paymentId + "-" + amountCents;
        }

        @Override
        public String chargeWaiting(String paymentId, long amountCents) {
          throw new UnsupportedOperationException();
        }
      }, IdemRuntime.builder().dataSource(database.dataSource()).resultCache(false).frontTier(tier)
          .listener(listener).build());

      assertEquals("charge-p-1-100", orders.charge("p-1", 100));
      assertTrue(circuit.contains("open"), "the other key's timeout opened the circuit: " + circuit);
      try (RedisClient client = RedisClient.create("redis://127.0.0.1:" + redis.port());
           StatefulRedisConnection<String, String> direct = client.connect()) {
        String left = direct.sync().get(tier.redisKey("redis.payments.charge", "p-1"));
        assertTrue(left != null && left.startsWith("F"), "the call's mark is still in Redis: " + left);
      }

      sleepQuietly(500); // the circuit lets a probe through
      assertEquals("charge-p-1-100", orders.charge("p-1", 100), "the retry is answered, by the database");
      assertEquals("closed", circuit.get(circuit.size() - 1), circuit.toString());
      assertEquals("charge-p-1-100", orders.charge("p-1", 100), "and then from the repaired entry");
      assertTrue(hits.get() >= 1, "the repair published the outcome over the stale mark: hits " + hits.get());
      assertEquals(1, runs.get());
    }
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
