package dev.idem.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdemAdmin;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyInProgressException;
import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.testing.CountingDataSource;
import dev.idem.testing.DatabaseContract;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Redis front tier on the real Redis at 127.0.0.1:6379 and a real database: two runtimes stand for two nodes of
 * one service; the second one's connections are counted, so "answered without the database" is a measured zero.
 * Subclasses pick the database.
 */
@Timeout(60)
abstract class RedisFrontTierContractTest extends DatabaseContract {

  private RedisTestKeys keys;
  private RedisFrontTier tierA;
  private RedisFrontTier tierB;
  private final AtomicInteger executions = new AtomicInteger();
  private final List<String> tierEvents = new CopyOnWriteArrayList<>();
  /** What the next body does before answering; replaced per test. */
  private volatile Runnable during = () -> {};
  private final ExecutorService otherNode = Executors.newSingleThreadExecutor();
  private Orders nodeA;
  private Orders nodeB;
  private CountingDataSource countingB;

  @Override
  protected void prepare() {
    IdemRuntime.builder().dataSource(database.dataSource()).build().createSchema();
    keys = new RedisTestKeys(getClass().getSimpleName());
  }

  @BeforeEach
  void twoNodes() {
    database.execute("DELETE FROM idem_record");
    executions.set(0);
    tierEvents.clear();
    during = () -> {};
    // A reply slower than the default 100 ms is a miss that falls through to the database: right in production,
    // but here a duplicate that falls through waits on the in-flight first call's row lock, which the test releases
    // only after that duplicate's answer (seen on a loaded CI machine). These tests are about what Redis answers;
    // RedisFaultTest covers slow and failing replies with the default timeout.
    tierA = RedisFrontTier.builder().keyPrefix(keys.prefix).commandTimeout(Duration.ofSeconds(5))
        .connect(RedisTestKeys.SHARED);
    tierB = RedisFrontTier.builder().keyPrefix(keys.prefix).maxResultBytes(200).commandTimeout(Duration.ofSeconds(5))
        .connect(RedisTestKeys.SHARED);
    nodeA = new Orders_Idempotent(new Work(), IdemRuntime.builder().dataSource(database.dataSource())
        .frontTier(tierA).build());
    countingB = new CountingDataSource(database.dataSource());
    nodeB = new Orders_Idempotent(new Work(), IdemRuntime.builder().dataSource(countingB)
        .resultCache(false) // every answer below comes from Redis or the database, never node B's memory
        .frontTier(tierB)
        .listener(new dev.idem.runtime.IdempotencyListener() {
          @Override
          public void frontTierHit(String scope, String key) {
            tierEvents.add("hit");
          }

          @Override
          public void frontTierMiss(String scope, String key) {
            tierEvents.add("miss");
          }

          @Override
          public void frontTierFallback(String scope, String key) {
            tierEvents.add("fallback");
          }
        })
        .build());
  }

  @AfterEach
  void closeTiers() {
    tierA.close();
    tierB.close();
    keys.clean();
  }

  @AfterAll
  void cleanRedis() {
    otherNode.shutdownNow();
    if (keys != null) {
      keys.close();
    }
  }

  private final class Work implements Orders {
    @Override
    public String create(String requestId, String sku) {
      executions.incrementAndGet();
      during.run();
      if (sku.isEmpty()) {
        throw new IllegalArgumentException("no sku");
      }
      return "order-" + requestId + "-" + sku.repeat(sku.startsWith("big") ? 50 : 1);
    }

    @Override
    public String charge(String paymentId, long amountCents) {
      executions.incrementAndGet();
      during.run();
      return "charge-" + paymentId + "-" + amountCents;
    }

    @Override
    public String chargeWaiting(String paymentId, long amountCents) {
      return charge(paymentId, amountCents);
    }
  }

  private static String newKey() {
    return UUID.randomUUID().toString();
  }

  private String redisValue(String scope, String key) {
    return keys.redis().get(tierA.redisKey(scope, key));
  }

  @Test
  void aRetryOnAnotherNodeReplaysFromRedisWithoutTheDatabase() {
    String key = newKey();
    assertEquals("order-" + key + "-book", nodeA.create(key, "book"));
    countingB.reset();

    assertEquals("order-" + key + "-book", nodeB.create(key, "book"));
    assertEquals("charge-" + key + "-500", nodeA.charge(key, 500));
    assertEquals("charge-" + key + "-500", nodeB.charge(key, 500));

    assertEquals(2, executions.get(), "each command ran once");
    assertEquals(0, countingB.connectionsObtained(), "node B never took a pooled connection");
    assertEquals(List.of("hit", "hit"), tierEvents);
  }

  @Test
  void aDifferentPayloadIsStillRefusedFromRedis() {
    String key = newKey();
    nodeA.create(key, "book");
    countingB.reset();

    assertThrows(IdempotencyKeyReusedException.class, () -> nodeB.create(key, "lamp"));
    assertEquals(0, countingB.connectionsObtained());
    assertEquals(1, executions.get());
  }

  @Test
  void theEntryNeverOutlivesTheRecord() {
    String key = newKey();
    nodeA.create(key, "book");
    long millisLeft = keys.redis().pttl(tierA.redisKey("redis.orders.create", key));
    assertTrue(millisLeft > Duration.ofMinutes(9).toMillis() && millisLeft <= Duration.ofMinutes(10).toMillis(),
        "PX from the record's expiry (retention PT10M): " + millisLeft);
  }

  @Test
  void aDuplicateOfACallInFlightIsToldSoWithoutTheDatabase() throws Exception {
    String key = newKey();
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    during = () -> {
      running.countDown();
      await(finish);
    };
    Future<String> first = otherNode.submit(() -> nodeA.charge(key, 700));
    assertTrue(running.await(20, TimeUnit.SECONDS));
    countingB.reset();

    IdempotencyInProgressException inFlight =
        assertThrows(IdempotencyInProgressException.class, () -> nodeB.charge(key, 700));
    assertNotNull(inFlight.leaseEndsAt(), "a CLAIM command's duplicate learns when to come back (Retry-After)");
    assertEquals(0, countingB.connectionsObtained());

    finish.countDown();
    assertEquals("charge-" + key + "-700", first.get(20, TimeUnit.SECONDS));
    assertEquals("charge-" + key + "-700", nodeB.charge(key, 700));
    assertEquals(1, executions.get());
    assertEquals(0, countingB.connectionsObtained());
  }

  @Test
  void aTransactionalDuplicateInFlightIsToldSoToo() throws Exception {
    String key = newKey();
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    during = () -> {
      running.countDown();
      await(finish);
    };
    Future<String> first = otherNode.submit(() -> nodeA.create(key, "book"));
    assertTrue(running.await(20, TimeUnit.SECONDS));
    countingB.reset();

    assertThrows(IdempotencyInProgressException.class, () -> nodeB.create(key, "book"));
    assertEquals(0, countingB.connectionsObtained(), "no connection waits on the claim's row lock");

    finish.countDown();
    first.get(20, TimeUnit.SECONDS);
    assertEquals("order-" + key + "-book", nodeB.create(key, "book"));
    assertEquals(1, executions.get());
  }

  @Test
  void aWaitingDuplicateWaitsInRedisAndGetsTheResult() throws Exception {
    String key = newKey();
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    during = () -> {
      running.countDown();
      await(finish);
    };
    Future<String> first = otherNode.submit(() -> nodeA.chargeWaiting(key, 900));
    assertTrue(running.await(20, TimeUnit.SECONDS));
    countingB.reset();
    during = () -> {};

    Thread releaser = new Thread(() -> {
      sleep(300);
      finish.countDown();
    });
    releaser.start();
    assertEquals("charge-" + key + "-900", nodeB.chargeWaiting(key, 900));
    assertEquals("charge-" + key + "-900", first.get(20, TimeUnit.SECONDS));
    assertEquals(1, executions.get());
    assertEquals(0, countingB.connectionsObtained(), "the waiting node polled Redis, not the database");
  }

  @Test
  void aFailedCallRemovesItsMarkSoThatARetryRuns() {
    String key = newKey();
    assertThrows(IllegalArgumentException.class, () -> nodeA.create(key, ""));
    assertNull(redisValue("redis.orders.create", key), "the failed call's mark is gone");
    assertThrows(IllegalArgumentException.class, () -> nodeB.create(key, ""));
    assertEquals(2, executions.get(), "the retry ran: nothing was recorded");
  }

  @Test
  void anEvictedEntryFallsThroughToTheDatabaseWhichReplaysAndRepublishes() {
    String key = newKey();
    nodeA.create(key, "book");
    keys.redis().unlink(tierA.redisKey("redis.orders.create", key)); // what maxmemory eviction does
    countingB.reset();

    assertEquals("order-" + key + "-book", nodeB.create(key, "book"));
    assertEquals(1, executions.get(), "the database replayed: nothing ran twice");
    assertTrue(countingB.connectionsObtained() > 0);
    assertTrue(redisValue("redis.orders.create", key).startsWith("C"), "the database's replay was published");

    countingB.reset();
    nodeB.create(key, "book");
    assertEquals(0, countingB.connectionsObtained());
  }

  @Test
  void anEntryTheTierCannotReadFallsThroughToTheDatabase() {
    String key = newKey();
    nodeA.create(key, "book");
    keys.redis().set(tierA.redisKey("redis.orders.create", key), "C{not json");
    countingB.reset();

    assertEquals("order-" + key + "-book", nodeB.create(key, "book"));
    assertEquals(1, executions.get());
    assertEquals(List.of("fallback"), tierEvents);
  }

  @Test
  void resultsAboveTheSizeLimitStayDatabaseOnly() {
    String key = newKey();
    String big = nodeB.create(key, "big-item"); // node B's tier publishes at most 200 bytes
    assertTrue(big.length() > 200);
    assertNull(redisValue("redis.orders.create", key), "not published, and its mark removed");
    countingB.reset();

    assertEquals(big, nodeB.create(key, "big-item"));
    assertTrue(countingB.connectionsObtained() > 0, "replayed by the database");
    assertEquals(1, executions.get());
  }

  @Test
  void aReleasedRecordIsForgottenInRedis() {
    String key = newKey();
    nodeA.charge(key, 100);
    assertNotNull(redisValue("redis.payments.charge", key));
    IdemRuntime admin = IdemRuntime.builder().dataSource(database.dataSource()).frontTier(tierA).build();
    IdemAdmin.of(admin).forget("redis.payments.charge", key);
    assertNull(redisValue("redis.payments.charge", key));
    nodeB.charge(key, 100);
    assertEquals(2, executions.get(), "the key ran anew, as the database said");
  }

  private static void await(CountDownLatch latch) {
    try {
      assertTrue(latch.await(30, TimeUnit.SECONDS));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
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
}
