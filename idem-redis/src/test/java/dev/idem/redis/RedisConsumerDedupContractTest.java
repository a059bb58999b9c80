package dev.idem.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.runtime.IdempotencyListener;
import dev.idem.testing.CountingDataSource;
import dev.idem.testing.DatabaseContract;
import dev.idem.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Consumer batches with Redis in front of the database's consume log, on the shared Redis (a prefix of this class's
 * own), once per database (a subclass per {@link TestDatabase}): redeliveries skipped from Redis without a
 * connection, the database deciding whatever Redis does not know, and the Bloom prefilter skipping only Redis reads,
 * never messages.
 */
@Timeout(60)
abstract class RedisConsumerDedupContractTest extends DatabaseContract {

  private RedisTestKeys keys;
  private final Map<String, AtomicInteger> processed = new ConcurrentHashMap<>();
  private final List<String> tierCommands = new CopyOnWriteArrayList<>();
  private final AtomicLong bloomSkipped = new AtomicLong();
  private final List<AutoCloseable> tiers = new ArrayList<>();

  private final IdempotencyListener listener = new IdempotencyListener() {
    @Override
    public void frontTierCommand(String operation, Throwable failure, long elapsedNanos) {
      tierCommands.add(operation + (failure == null ? "" : ":failed"));
    }

    @Override
    public void frontTierBloomSkipped(String scope, int count) {
      bloomSkipped.addAndGet(count);
    }
  };

  @Override
  protected void prepare() {
    IdemRuntime.builder().dataSource(database.dataSource()).build().createSchema();
    keys = new RedisTestKeys(getClass().getSimpleName());
  }

  @BeforeEach
  void clean() throws Exception {
    database.execute("DELETE FROM idem_record");
    keys.clean();
    processed.clear();
    tierCommands.clear();
    bloomSkipped.set(0);
    counting.reset();
  }

  @AfterAll
  void closeAll() throws Exception {
    for (AutoCloseable tier : tiers) {
      tier.close();
    }
    keys.close();
  }

  private PaymentEvents consumer(RedisFrontTier.Builder tier, javax.sql.DataSource dataSource) {
    RedisFrontTier connected = tier.keyPrefix(keys.prefix).listener(listener).connect(RedisTestKeys.SHARED);
    tiers.add(connected);
    return new PaymentEvents_Idempotent(messages -> {
      messages.forEach(m -> processed.computeIfAbsent(m.messageId(), k -> new AtomicInteger()).incrementAndGet());
      return messages.size();
    }, IdemRuntime.builder().dataSource(dataSource).resultCache(false).frontTier(connected).build());
  }

  private static List<PaymentEvents.Paid> batch(String prefix, int from, int to) {
    List<PaymentEvents.Paid> batch = new ArrayList<>();
    for (int i = from; i < to; i++) {
      batch.add(new PaymentEvents.Paid(prefix + i, 100 + i));
    }
    return batch;
  }

  private void assertEachProcessedOnce(int expected) {
    assertEquals(expected, processed.size());
    processed.forEach((id, count) -> assertEquals(1, count.get(), id + " processed " + count.get() + " times"));
  }

  @Test
  void aRedeliveredBatchIsSkippedFromRedisWithoutADatabaseConnection() {
    CountingDataSource node = new CountingDataSource(database.dataSource());
    PaymentEvents consumer = consumer(RedisFrontTier.builder(), node);
    String id = UUID.randomUUID() + "-";
    assertEquals(20, consumer.onPaid(batch(id, 0, 20)));
    node.reset();
    assertEquals(0, consumer.onPaid(batch(id, 0, 20)));
    assertEquals(0, node.connectionsObtained(), "every message known as consumed in Redis");
    // 10% new: only they reach the database and the handler.
    assertEquals(2, consumer.onPaid(batch(id, 2, 22)));
    assertEachProcessedOnce(22);
  }

  @Test
  void anotherPayloadUnderAConsumedIdRejectsTheBatchAsTheDatabaseWould() {
    PaymentEvents consumer = consumer(RedisFrontTier.builder(), counting);
    String id = UUID.randomUUID() + "-";
    consumer.onPaid(batch(id, 0, 5));
    List<PaymentEvents.Paid> changed = batch(id, 5, 8);
    changed.add(new PaymentEvents.Paid(id + 3, 999));
    assertThrows(IdempotencyKeyReusedException.class, () -> consumer.onPaid(changed));
    assertEachProcessedOnce(5);
  }

  @Test
  void whatRedisDoesNotKnowTheDatabaseDecides() {
    String id = UUID.randomUUID() + "-";
    PaymentEvents first = consumer(RedisFrontTier.builder(), counting);
    first.onPaid(batch(id, 0, 10));
    keys.clean(); // Redis lost everything (restart, eviction)
    PaymentEvents second = consumer(RedisFrontTier.builder(), counting);
    assertEquals(0, second.onPaid(batch(id, 0, 10)), "the consume log in the database still has them");
    assertEachProcessedOnce(10);
  }

  @Test
  void theBloomPrefilterSkipsRedisReadsForKeysItDefinitelyHasNotSeen() {
    PaymentEvents consumer = consumer(RedisFrontTier.builder().bloomPrefilter(10_000, 0.001, Duration.ofMinutes(5)),
        counting);
    String id = UUID.randomUUID() + "-";
    assertEquals(50, consumer.onPaid(batch(id, 0, 50)));
    assertEquals(50, bloomSkipped.get(), "new keys: no Redis read");
    assertFalse(tierCommands.contains("batch-lookup"), tierCommands.toString());
    assertTrue(tierCommands.contains("batch-publish"), tierCommands.toString());
    counting.reset();
    assertEquals(0, consumer.onPaid(batch(id, 0, 50)), "redelivered: maybe present, looked up, skipped");
    assertTrue(tierCommands.contains("batch-lookup"), tierCommands.toString());
    assertEquals(0, counting.connectionsObtained());
    // A node whose filter never saw them: definitely absent there, so the database decides (duplicates).
    PaymentEvents otherNode = consumer(RedisFrontTier.builder().bloomPrefilter(10_000, 0.001,
        Duration.ofMinutes(5)), counting);
    assertEquals(0, otherNode.onPaid(batch(id, 0, 50)));
    assertEachProcessedOnce(50);
  }

  @Test
  void aSaturatedBloomFilterNeverDropsOrSkipsAMessage() {
    // 64 bits for one expected key: after a few hundred keys every bit is set, so everything is "maybe present".
    PaymentEvents consumer = consumer(RedisFrontTier.builder().bloomPrefilter(1, 0.5, Duration.ofMinutes(5)),
        counting);
    String id = UUID.randomUUID() + "-";
    for (int i = 0; i < 300; i += 30) {
      assertEquals(30, consumer.onPaid(batch(id, i, i + 30)));
    }
    long skippedWhileFilling = bloomSkipped.get();
    // New keys that the saturated filter calls "maybe present" (false positives): looked up, absent, processed.
    for (int i = 300; i < 600; i += 30) {
      assertEquals(30, consumer.onPaid(batch(id, i, i + 30)));
    }
    assertTrue(bloomSkipped.get() - skippedWhileFilling < 30, "saturated: almost nothing definitely absent ("
        + (bloomSkipped.get() - skippedWhileFilling) + " skipped lookups)");
    assertEquals(0, consumer.onPaid(batch(id, 0, 600)), "every consumed message still skipped");
    assertEachProcessedOnce(600);
  }
}
