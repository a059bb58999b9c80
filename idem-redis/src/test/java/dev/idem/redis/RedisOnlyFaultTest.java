package dev.idem.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.Dialect;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyInProgressException;
import dev.idem.runtime.IdempotencyRecordStoreException;
import dev.idem.testing.DatabaseContract;
import dev.idem.testing.TestDatabase;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Redis-only commands when their Redis fails, on a redis-server of the test's own: a clear error, never a silent
 * second run; a body that ran is reported as such.
 */
@Timeout(120)
class RedisOnlyFaultTest extends DatabaseContract {

  private final AtomicInteger executions = new AtomicInteger();
  private volatile Runnable during = () -> {};

  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }

  @Override
  protected void prepare() {}

  @BeforeEach
  void reset() {
    executions.set(0);
    during = () -> {};
    counting.reset();
  }

  private Reminders reminders(RedisRecordStore store) {
    return new Reminders_Idempotent(new Reminders() {
      @Override
      public String send(String reminderId, String text) {
        executions.incrementAndGet();
        during.run();
        return reminderId + ":" + text;
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
    }, IdemRuntime.builder().dataSource(counting).dialect(Dialect.H2).recordStore(store).build());
  }

  @Test
  void redisDownRefusesToRunAndRedisBackRunsOnce() throws Exception {
    try (PrivateRedis redis = new PrivateRedis().start();
         RedisRecordStore store = RedisRecordStore.builder().commandTimeout(Duration.ofMillis(500))
             .connect(redis.uri())) {
      Reminders reminders = reminders(store);
      assertEquals("a:x", reminders.send("a", "x"));
      redis.kill();
      IdempotencyRecordStoreException down =
          assertThrows(IdempotencyRecordStoreException.class, () -> reminders.send("b", "x"));
      assertTrue(down.getMessage().contains("the body did not run"), down.getMessage());
      // Even a key it had completed: the store cannot say so, and idem never guesses that it is new.
      assertThrows(IdempotencyRecordStoreException.class, () -> reminders.send("a", "x"));
      assertEquals(1, executions.get());
      assertEquals(0, counting.connectionsObtained(), "never moved to the database");

      redis.start(); // back, empty (no persistence): "a" is forgotten, the documented repeat after a restart
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      String b = null;
      while (b == null) {
        try {
          b = reminders.send("b", "x");
        } catch (IdempotencyRecordStoreException reconnecting) {
          assertTrue(System.nanoTime() < deadline, "Lettuce reconnects");
          Thread.sleep(100);
        }
      }
      assertEquals("b:x", b);
      assertEquals("b:x", reminders.send("b", "x"));
      assertEquals(2, executions.get());
    }
  }

  @Test
  void redisUnreachableAfterTheBodyIsReportedAsNotRecordedAndTheClaimHolds() throws Exception {
    try (PrivateRedis redis = new PrivateRedis().start();
         RedisRecordStore store = RedisRecordStore.builder().commandTimeout(Duration.ofMillis(300))
             .connect(redis.uri())) {
      Reminders reminders = reminders(store);
      RedisClient admin = RedisClient.create(redis.uri());
      try (StatefulRedisConnection<String, String> connection = admin.connect()) {
        // The completion's write waits behind the pause, longer than the command timeout.
        during = () -> connection.sync().clientPause(1500);
        IdempotencyRecordStoreException lost =
            assertThrows(IdempotencyRecordStoreException.class, () -> reminders.send("c", "x"));
        assertTrue(lost.getMessage().contains("its body ran"), lost.getMessage());
        assertTrue(lost.getMessage().contains("its claim holds until its lease of PT30S ends"), lost.getMessage());
        during = () -> {};
        Thread.sleep(1600);
        // The completion that timed out ran once the pause ended (Redis had it queued): replayed. Had it been
        // lost, the claim would hold and the retry be told it is in progress. Never a second run.
        try {
          assertEquals("c:x", reminders.send("c", "x"));
        } catch (IdempotencyInProgressException claimHolds) {
          // the other allowed answer
        }
        assertEquals(1, executions.get());
      } finally {
        admin.shutdown();
      }
    }
  }
}
