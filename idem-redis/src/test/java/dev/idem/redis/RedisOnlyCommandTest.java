package dev.idem.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.Dialect;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyException;
import dev.idem.runtime.IdempotencyInProgressException;
import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.runtime.IdempotencyLeaseLostException;
import dev.idem.runtime.IdempotencyResultShapeException;
import dev.idem.testing.CountingDataSource;
import dev.idem.testing.DatabaseContract;
import dev.idem.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
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
 * Redis-only commands on the shared Redis at 127.0.0.1:6379 (a key prefix of this class's own): two runtimes stand
 * for two nodes; their data source is counted, and stays untouched.
 */
@Timeout(60)
class RedisOnlyCommandTest extends DatabaseContract {

  private RedisTestKeys keys;
  private RedisRecordStore storeA;
  private RedisRecordStore storeB;
  private CountingDataSource countingA;
  private CountingDataSource countingB;
  private Reminders nodeA;
  private Reminders nodeB;
  private final AtomicInteger executions = new AtomicInteger();
  private volatile Runnable during = () -> {};
  private final ExecutorService otherNode = Executors.newFixedThreadPool(8);

  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }

  @Override
  protected void prepare() {
    keys = new RedisTestKeys(getClass().getSimpleName());
  }

  @BeforeEach
  void twoNodes() {
    executions.set(0);
    during = () -> {};
    storeA = RedisRecordStore.builder().keyPrefix(keys.prefix).connect(RedisTestKeys.SHARED);
    storeB = RedisRecordStore.builder().keyPrefix(keys.prefix).connect(RedisTestKeys.SHARED);
    countingA = new CountingDataSource(database.dataSource());
    countingB = new CountingDataSource(database.dataSource());
    nodeA = new Reminders_Idempotent(new Work(), IdemRuntime.builder().dataSource(countingA).dialect(Dialect.H2)
        .recordStore(storeA).build());
    nodeB = new Reminders_Idempotent(new Work(), IdemRuntime.builder().dataSource(countingB).dialect(Dialect.H2)
        .recordStore(storeB).build());
  }

  @AfterEach
  void closeStores() {
    storeA.close();
    storeB.close();
    keys.clean();
  }

  @AfterAll
  void closeKeys() {
    otherNode.shutdownNow();
    keys.close();
  }

  private final class Work implements Reminders {
    @Override
    public String send(String reminderId, String text) {
      executions.incrementAndGet();
      during.run();
      return reminderId + ":" + text + ":" + executions.get();
    }

    @Override
    public String sendWaiting(String reminderId, String text) {
      return send(reminderId, text);
    }

    @Override
    public String sendShortLease(String reminderId, String text) {
      return send(reminderId, text);
    }

    @Override
    public String click(String userId, String button) {
      return send(userId, button);
    }
  }

  private static String newKey() {
    return UUID.randomUUID().toString();
  }

  @Test
  void runsOnceAndReplaysOnEveryNodeWithoutTheDatabase() {
    String key = newKey();
    String first = nodeA.send(key, "hello");
    assertEquals(first, nodeA.send(key, "hello"));
    assertEquals(first, nodeB.send(key, "hello"));
    assertEquals(1, executions.get());
    assertEquals(0, countingA.connectionsObtained() + countingB.connectionsObtained(),
        "a Redis-only command never asks the database");
    // The claim and the outcome live on Redis's clock: the key expires with the command's retention.
    long ttl = keys.redis().pttl(storeA.redisKey("redis.reminders.send", key));
    assertTrue(ttl > 9 * 60_000 && ttl <= 10 * 60_000, "retention PT10M as the key's TTL: " + ttl);
  }

  @Test
  void anotherPayloadUnderTheKeyIsRefusedCompletedOrInFlight() throws Exception {
    String key = newKey();
    nodeA.send(key, "hello");
    assertThrows(IdempotencyKeyReusedException.class, () -> nodeB.send(key, "other"));

    String inFlight = newKey();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    during = () -> {
      started.countDown();
      await(finish);
    };
    Future<String> owner = otherNode.submit(() -> nodeA.send(inFlight, "hello"));
    assertTrue(started.await(10, TimeUnit.SECONDS));
    during = () -> {};
    assertThrows(IdempotencyKeyReusedException.class, () -> nodeB.send(inFlight, "other"));
    assertThrows(IdempotencyInProgressException.class, () -> nodeB.send(inFlight, "hello"));
    finish.countDown();
    assertEquals(owner.get(10, TimeUnit.SECONDS), nodeB.send(inFlight, "hello"));
    assertEquals(2, executions.get());
  }

  @Test
  void waitingDuplicatesGetTheOwnersResult() throws Exception {
    String key = newKey();
    CountDownLatch started = new CountDownLatch(1);
    during = () -> {
      started.countDown();
      sleep(300);
    };
    Future<String> owner = otherNode.submit(() -> nodeA.sendWaiting(key, "hi"));
    assertTrue(started.await(10, TimeUnit.SECONDS));
    List<Future<String>> waiters = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      waiters.add(otherNode.submit(() -> nodeB.sendWaiting(key, "hi")));
    }
    String result = owner.get(20, TimeUnit.SECONDS);
    for (Future<String> waiter : waiters) {
      assertEquals(result, waiter.get(20, TimeUnit.SECONDS));
    }
    assertEquals(1, executions.get());
  }

  @Test
  void concurrentCallersOnTwoNodesRunTheBodyOnce() throws Exception {
    for (int round = 0; round < 10; round++) {
      String key = newKey();
      executions.set(0);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<String>> calls = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        Reminders node = i % 2 == 0 ? nodeA : nodeB;
        calls.add(otherNode.submit(() -> {
          go.await();
          try {
            return node.sendWaiting(key, "x");
          } catch (IdempotencyInProgressException e) {
            return "in-progress";
          }
        }));
      }
      go.countDown();
      String expected = null;
      for (Future<String> call : calls) {
        String got = call.get(20, TimeUnit.SECONDS);
        if (expected == null) {
          expected = got;
        }
        assertEquals(expected, got);
      }
      assertEquals(1, executions.get(), "round " + round);
    }
  }

  @Test
  void aFailedBodyReleasesTheClaimSoThatARetryRuns() {
    String key = newKey();
    during = () -> {
      throw new IllegalStateException("the mail server said no");
    };
    assertThrows(IllegalStateException.class, () -> nodeA.send(key, "hello"));
    during = () -> {};
    assertEquals(key + ":hello:2", nodeB.send(key, "hello"));
    assertTrue(keys.redis().get(storeA.redisKey("redis.reminders.send", key)).startsWith("C"),
        "the retry's outcome is stored");
  }

  @Test
  void aBodyThatOutlivesItsLeaseCanRunTwiceAndItsLateOwnerIsTold() throws Exception {
    // The documented repeat: a lease shorter than the work.
    String key = newKey();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    during = () -> {
      started.countDown();
      await(finish);
    };
    Future<String> slow = otherNode.submit(() -> nodeA.sendShortLease(key, "hi"));
    assertTrue(started.await(10, TimeUnit.SECONDS));
    during = () -> {};
    sleep(500); // the lease of 300 ms ends on Redis's clock
    String second = nodeB.sendShortLease(key, "hi");
    finish.countDown();
    java.util.concurrent.ExecutionException late =
        assertThrows(java.util.concurrent.ExecutionException.class, () -> slow.get(10, TimeUnit.SECONDS));
    assertTrue(late.getCause() instanceof IdempotencyLeaseLostException, String.valueOf(late.getCause()));
    assertEquals(2, executions.get());
    assertEquals(second, nodeA.sendShortLease(key, "hi"), "the outcome that stands is the second owner's");
  }

  @Test
  void clicksWithoutAKeyAreOneActionWithinTheWindowHeldByRedissExpiry() throws Exception {
    String user = newKey();
    String first = nodeA.click(user, "subscribe");
    sleep(100);
    assertEquals(first, nodeB.click(user, "subscribe"), "100 ms later, on another node: the same action");
    nodeA.click(user, "unsubscribe"); // another payload: another action
    assertEquals(2, executions.get());
    List<String> windowKeys = keys.redis().keys(keys.prefix + "{redis.reminders.click|" + user + "|*");
    assertEquals(2, windowKeys.size(), "one key per caller and payload: " + windowKeys);
    for (String windowKey : windowKeys) {
      assertTrue(windowKey.matches(".*\\|[0-9a-f]{32}}$"), "identity | 128 bits of the payload's hash: " + windowKey);
      long ttl = keys.redis().pttl(windowKey);
      assertTrue(ttl > 0 && ttl <= 1000, "the window PT1S is the key's TTL on Redis's clock: " + ttl);
    }
    sleep(1100);
    assertNotEquals(first, nodeA.click(user, "subscribe"), "the window ended: a new action");
    assertEquals(3, executions.get());
  }

  @Test
  void aReplayChecksTheStoredShape() {
    String key = newKey();
    nodeA.send(key, "hello");
    String redisKey = storeA.redisKey("redis.reminders.send", key);
    String stored = keys.redis().get(redisKey);
    keys.redis().set(redisKey, stored.replaceFirst("\"s\":\"[^\"]*\"", "\"s\":\"another-shape\""));
    assertThrows(IdempotencyResultShapeException.class, () -> nodeB.send(key, "hello"));
    assertEquals(1, executions.get());
  }

  @Test
  void aRuntimeWithoutARecordStoreRefusesTheCommandBeforeItsBody() {
    Reminders noStore = new Reminders_Idempotent(new Work(), IdemRuntime.builder().dataSource(countingA)
        .dialect(Dialect.H2).build());
    IdempotencyException refused = assertThrows(IdempotencyException.class, () -> noStore.send(newKey(), "x"));
    assertTrue(refused.getMessage().contains("this runtime has no record store"), refused.getMessage());
    assertTrue(refused.getMessage().contains("recordStore(RedisRecordStore"), refused.getMessage());
    assertEquals(0, executions.get());
    assertEquals(0, countingA.connectionsObtained());
  }

  private static void await(CountDownLatch latch) {
    try {
      assertTrue(latch.await(20, TimeUnit.SECONDS));
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
      throw new IllegalStateException(e);
    }
  }
}
