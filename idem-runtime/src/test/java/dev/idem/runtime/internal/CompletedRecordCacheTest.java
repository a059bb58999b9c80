package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.FrontTier;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** The result cache's own contract: bounded, thread-safe, never an expired or another key's record. */
class CompletedRecordCacheTest {

  private static final long NOW = 1_000_000L;

  private static CompletedRecord record(String result, long expiresAt) {
    return new CompletedRecord("fp-" + result, result, null, null, expiresAt, NOW - 1);
  }

  @Test
  void holdsWhatWasPutAndReplacesAKeysRecord() {
    CompletedRecordCache cache = new CompletedRecordCache(100);
    CompletedRecord first = record("1", NOW + 1000);
    cache.put("s", "k", first);
    assertSame(first, cache.get("s", "k", NOW));
    assertNull(cache.get("other", "k", NOW), "the scope is part of the key");
    assertNull(cache.get("s", "k2", NOW));
    CompletedRecord second = record("2", NOW + 1000);
    cache.put("s", "k", second);
    assertSame(second, cache.get("s", "k", NOW));
    assertTrue(cache.stillHolds("s", "k", second, NOW));
    assertFalse(cache.stillHolds("s", "k", first, NOW), "only that very record instance");
    assertEquals(1, cache.size());
  }

  @Test
  void staysBoundedUnderManyKeysAndKeepsTheLatest() {
    for (int maxEntries : new int[] {1, 2, 7, 16, 100, 1000, 10_000}) {
      CompletedRecordCache cache = new CompletedRecordCache(maxEntries);
      assertTrue(cache.capacity() <= maxEntries && cache.capacity() >= Math.min(maxEntries, 16) / 2,
          maxEntries + ": capacity " + cache.capacity());
      CompletedRecord last = null;
      for (int i = 0; i < 50 * maxEntries + 1000; i++) {
        last = record(Integer.toString(i), NOW + 1000);
        cache.put("scope", "key-" + i, last);
        assertTrue(cache.size() <= maxEntries, maxEntries + ": " + cache.size() + " entries");
      }
      assertSame(last, cache.get("scope", "key-" + (50 * maxEntries + 999), NOW), "the newest key stays");
      if (maxEntries >= 1000) {
        assertTrue(cache.size() > maxEntries * 9 / 10, "a full cache uses its room: " + cache.size());
      }
    }
  }

  @Test
  void aReplayedKeyOutlivesKeysStoredAfterIt() {
    CompletedRecordCache cache = new CompletedRecordCache(1000);
    CompletedRecord hot = record("hot", NOW + 1000);
    cache.put("s", "hot", hot);
    for (int i = 0; i < 100_000; i++) {
      cache.put("s", "cold-" + i, record(Integer.toString(i), NOW + 1000));
      if (i % 100 == 0) {
        assertSame(hot, cache.get("s", "hot", NOW), "after " + i + " newer keys");
      }
    }
  }

  @Test
  void neverReturnsAnExpiredRecord() {
    CompletedRecordCache cache = new CompletedRecordCache(100);
    CompletedRecord record = record("1", NOW + 10);
    cache.put("s", "k", record);
    assertSame(record, cache.get("s", "k", NOW + 9));
    assertTrue(cache.stillHolds("s", "k", record, NOW + 9));
    assertNull(cache.get("s", "k", NOW + 10), "expired at its expiry");
    assertFalse(cache.stillHolds("s", "k", record, NOW + 10));
    assertEquals(0, cache.size(), "an expired entry found is dropped");
    cache.put("s", "k2", record);
    assertFalse(cache.stillHolds("s", "k2", record, NOW + 11));
    assertNull(cache.get("s", "k2", NOW + 9), "dropped by stillHolds");
  }

  @Test
  void evictClearAndDisabled() {
    CompletedRecordCache cache = new CompletedRecordCache(100);
    for (int i = 0; i < 50; i++) {
      cache.put("s", "k" + i, record(Integer.toString(i), NOW + 1000));
    }
    cache.evict("s", "k7");
    assertNull(cache.get("s", "k7", NOW));
    assertEquals("8", cache.get("s", "k8", NOW).result());
    cache.evict("s", "never-put");
    cache.clear();
    assertEquals(0, cache.size());
    for (int i = 0; i < 50; i++) {
      assertNull(cache.get("s", "k" + i, NOW));
    }

    CompletedRecordCache disabled = new CompletedRecordCache(0);
    assertFalse(disabled.isEnabled());
    disabled.put("s", "k", record("1", NOW + 1000));
    assertNull(disabled.get("s", "k", NOW));
    assertFalse(disabled.stillHolds("s", "k", record("1", NOW + 1000), NOW));
    disabled.evict("s", "k");
    disabled.clear();
  }

  @Test
  void concurrentPutsAndGetsNeverLoseOrMixUpEntries() throws Exception {
    // Room for all: 8 threads x 500 keys in a cache of 40,000 (a bucket overflows only by chance, not here).
    int threads = 8;
    int keysPerThread = 500;
    CompletedRecordCache cache = new CompletedRecordCache(40_000);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      String scope = "thread-" + t;
      done.add(pool.submit(() -> {
        start.await();
        for (int round = 0; round < 20; round++) {
          for (int i = 0; i < keysPerThread; i++) {
            String key = "key-" + i;
            CompletedRecord mine = record(scope + "/" + key + "/" + round, NOW + 1000);
            cache.put(scope, key, mine);
            // Any thread's key of the same name is another scope's: never answered for this one.
            CompletedRecord got = cache.get(scope, key, NOW);
            assertSame(mine, got, scope + " " + key);
            CompletedRecord neighbour = cache.get("thread-" + ((Integer.parseInt(scope.substring(7)) + 1) % threads),
                key, NOW);
            assertTrue(neighbour == null || neighbour.result().startsWith("thread-"
                + ((Integer.parseInt(scope.substring(7)) + 1) % threads) + "/" + key + "/"), "a wrong entry");
          }
        }
        return null;
      }));
    }
    start.countDown();
    for (Future<?> future : done) {
      future.get();
    }
    pool.shutdown();
    for (int t = 0; t < threads; t++) {
      for (int i = 0; i < keysPerThread; i++) {
        CompletedRecord got = cache.get("thread-" + t, "key-" + i, NOW);
        assertEquals("thread-" + t + "/key-" + i + "/19", got == null ? null : got.result(), "lost or stale");
      }
    }
    assertEquals(threads * keysPerThread, cache.size());
  }

  @Test
  void concurrentChurnOverACacheTooSmallStaysBoundedAndCorrect() throws Exception {
    int threads = 8;
    CompletedRecordCache cache = new CompletedRecordCache(500);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      done.add(pool.submit(() -> {
        for (int i = 0; i < 50_000; i++) {
          String key = "k" + (i % 3000);
          CompletedRecord got = cache.get("s", key, NOW);
          assertTrue(got == null || got.result().equals(key), "a wrong entry for " + key);
          if (got == null) {
            cache.put("s", key, record(key, NOW + 1000));
          }
          if ((i + thread) % 97 == 0) {
            cache.evict("s", key);
          }
        }
        return null;
      }));
    }
    for (Future<?> future : done) {
      future.get();
    }
    pool.shutdown();
    assertTrue(cache.size() <= 500, cache.size() + " entries");
  }

  @Test
  void putPublishesAndEvictForgetsOnTheFrontTierButMakingRoomDoesNot() {
    List<String> calls = Collections.synchronizedList(new ArrayList<>());
    FrontTier tier = new FrontTier() {
      @Override
      public Lookup lookupOrMark(String scope, String key, String token, Duration inFlightFor) {
        return Lookup.unavailable();
      }

      @Override
      public boolean publish(String scope, String key, Completed outcome, Duration timeToLive) {
        calls.add("publish " + scope + "/" + key);
        return true;
      }

      @Override
      public void unmark(String scope, String key, String token) {
        calls.add("unmark " + scope + "/" + key);
      }

      @Override
      public void forget(String scope, String key) {
        calls.add("forget " + scope + "/" + key);
      }
    };
    long farFuture = System.currentTimeMillis() + 3_600_000;
    FrontTierGate gate = new FrontTierGate(tier, new DatabaseClock(Clock.systemUTC(), null, false),
        Duration.ofSeconds(30));
    CompletedRecordCache cache = new CompletedRecordCache(1, gate);
    cache.put("s", "a", record("a", farFuture));
    cache.put("s", "b", record("b", farFuture)); // pushes a out: no forget
    assertNull(cache.get("s", "a", NOW));
    cache.evict("s", "b");
    cache.evict("s", "a"); // not held here, but the tier may hold it: forgotten all the same
    assertEquals(List.of("publish s/a", "publish s/b", "forget s/b", "forget s/a"), calls);
    assertNull(cache.get("s", "b", NOW));

    calls.clear();
    CompletedRecordCache disabledWithTier = new CompletedRecordCache(0, gate);
    disabledWithTier.put("s", "c", record("c", farFuture));
    disabledWithTier.evict("s", "c");
    assertEquals(List.of("publish s/c", "forget s/c"), calls, "the tier is reached with the cache off too");
  }
}
