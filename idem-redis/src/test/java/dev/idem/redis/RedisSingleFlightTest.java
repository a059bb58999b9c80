package dev.idem.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.FencedUpdate;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.SingleFlightLockLostException;
import dev.idem.testing.DatabaseContract;
import dev.idem.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code @SingleFlight} end to end with {@link RedisLockProvider}: the generated wrapper ({@code RedisJobs_Idempotent})
 * of two runtimes ("instances", each with its own Redis connection) over PostgreSQL, the lock in the shared Redis
 * (this class's key prefix), the body's writes fenced on a table of the database ({@link FencedUpdate}): runs never
 * overlap, tokens increase in the order the runs started, and a holder that lost its lock (its key gone, as after a
 * failover that lost it) is interrupted and its late fenced write rejected.
 */
@Timeout(120)
class RedisSingleFlightTest extends DatabaseContract {

  private final RedisTestKeys keys = new RedisTestKeys("RedisSingleFlightTest");

  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }

  @Override
  protected void prepare() {
    database.execute("CREATE TABLE job_run (fence BIGINT PRIMARY KEY, started_us BIGINT NOT NULL,"
        + " ended_us BIGINT NOT NULL)",
        "CREATE TABLE report (id INT PRIMARY KEY, runs INT NOT NULL, fence BIGINT NOT NULL)",
        "INSERT INTO report (id, runs, fence) VALUES (1, 0, 0)",
        "INSERT INTO report (id, runs, fence) VALUES (2, 0, 0)");
  }

  @AfterAll
  void cleanRedis() {
    keys.close();
  }

  /** One instance: its runtime, its own Redis connection, its generated jobs. */
  private final class Instance implements AutoCloseable {
    final RedisLockProvider locks = RedisLockProvider.builder().keyPrefix(keys.prefix).connect(RedisTestKeys.SHARED);
    final IdemRuntime runtime = IdemRuntime.builder().dataSource(database.dataSource()).lockProvider(locks).build();
    final CountDownLatch release = new CountDownLatch(1);
    final CountDownLatch slowStarted = new CountDownLatch(1);
    final AtomicBoolean slowInterrupted = new AtomicBoolean();
    final AtomicBoolean slowLateWrite = new AtomicBoolean(true);
    final AtomicLong slowToken = new AtomicLong();
    final RedisJobs jobs = new RedisJobs_Idempotent(new RedisJobs() {
      @Override
      public void report() {
        long token = runtime.fencingToken();
        long started = micros();
        sleep(5);
        try (Connection connection = database.dataSource().getConnection()) {
          connection.setAutoCommit(true);
          assertTrue(FencedUpdate.of("report", "fence").set("runs", runs(connection) + 1).where("id", 1)
              .execute(connection, token), "the holder's fenced write is taken");
          try (PreparedStatement run = connection.prepareStatement(
              "INSERT INTO job_run (fence, started_us, ended_us) VALUES (?, ?, ?)")) {
            run.setLong(1, token);
            run.setLong(2, started);
            run.setLong(3, micros());
            run.executeUpdate();
          }
        } catch (SQLException e) {
          throw new IllegalStateException(e);
        }
      }

      @Override
      public void slow() {
        slowToken.set(runtime.fencingToken());
        slowStarted.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          slowInterrupted.set(true); // the watchdog: the lock is lost
        }
        try (Connection connection = database.dataSource().getConnection()) {
          connection.setAutoCommit(true);
          slowLateWrite.set(FencedUpdate.of("report", "fence").set("runs", -1).where("id", 2)
              .execute(connection, slowToken.get()));
        } catch (SQLException e) {
          throw new IllegalStateException(e);
        }
      }
    }, runtime);

    @Override
    public void close() {
      runtime.close();
      locks.close();
    }
  }

  @Test
  void runsNeverOverlapAcrossInstancesAndALateHoldersFencedWriteIsRejected() throws Exception {
    try (Instance first = new Instance(); Instance second = new Instance()) {
      ExecutorService threads = Executors.newFixedThreadPool(6);
      try {
        List<Future<?>> firing = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
          RedisJobs jobs = (t % 2 == 0 ? first : second).jobs;
          firing.add(threads.submit(() -> {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (System.nanoTime() < end) {
              jobs.report();
            }
            return null;
          }));
        }
        for (Future<?> f : firing) {
          f.get(60, TimeUnit.SECONDS);
        }

        List<long[]> runs = new ArrayList<>();
        try (Connection connection = database.dataSource().getConnection();
            PreparedStatement query = connection.prepareStatement(
                "SELECT fence, started_us, ended_us FROM job_run ORDER BY started_us");
            ResultSet rs = query.executeQuery()) {
          while (rs.next()) {
            runs.add(new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)});
          }
          assertTrue(runs.size() >= 10, "ran " + runs.size() + " times");
          for (int i = 1; i < runs.size(); i++) {
            assertTrue(runs.get(i)[0] > runs.get(i - 1)[0], "tokens in the order of the runs");
            assertTrue(runs.get(i)[1] >= runs.get(i - 1)[2], "run " + i + " started before run " + (i - 1)
                + " ended");
          }
          assertEquals(runs.size(), runs(connection), "every run's fenced write was taken");
        }

        // A holder whose lock is lost (its key removed, as by a failover that lost the write) while it runs.
        Future<?> slow = threads.submit(() -> {
          first.jobs.slow();
          return null;
        });
        assertTrue(first.slowStarted.await(10, TimeUnit.SECONDS));
        keys.redis().del(first.locks.lockKey("redis.slow"));
        second.jobs.report(); // the report's own lock: unaffected
        SingleFlightLockLostException lost = assertThrows(SingleFlightLockLostException.class, () -> {
          try {
            slow.get(30, TimeUnit.SECONDS);
          } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause();
          }
        });
        assertEquals("redis.slow", lost.lockName());
        assertTrue(first.slowInterrupted.get(), "the watchdog's renewal failed and interrupted the body");
        // Its write comes after later holders' (the report runs' tokens are of another name: write one with the
        // slow lock's next holder, as the instance that took it over would).
        assertTrue(second.runtime.singleFlight("redis.slow", java.time.Duration.ofSeconds(5),
            java.time.Duration.ZERO, () -> second.runtime.fencingToken()).orElseThrow() > first.slowToken.get());
      } finally {
        threads.shutdownNow();
      }
    }
  }

  @Test
  void aLateWriteWithAnEarlierTokenOfTheSameLockIsRejected() throws Exception {
    try (Instance one = new Instance(); Instance two = new Instance()) {
      Future<?> slow = Executors.newSingleThreadExecutor().submit(() -> {
        one.jobs.slow();
        return null;
      });
      assertTrue(one.slowStarted.await(10, TimeUnit.SECONDS));
      // The lock is lost (a failover without the key); the other instance takes it and writes with its token.
      keys.redis().del(one.locks.lockKey("redis.slow"));
      long later = two.runtime.singleFlight("redis.slow", java.time.Duration.ofSeconds(5), java.time.Duration.ZERO,
          () -> {
            try (Connection connection = database.dataSource().getConnection()) {
              connection.setAutoCommit(true);
              assertTrue(FencedUpdate.of("report", "fence").set("runs", 1_000).where("id", 2)
                  .execute(connection, two.runtime.fencingToken()));
            } catch (SQLException e) {
              throw new IllegalStateException(e);
            }
            return two.runtime.fencingToken();
          }).orElseThrow();
      assertTrue(later > one.slowToken.get());
      one.release.countDown(); // the first holder wakes up late, if the watchdog has not interrupted it yet
      assertThrows(java.util.concurrent.ExecutionException.class, () -> slow.get(30, TimeUnit.SECONDS));
      assertFalse(one.slowLateWrite.get(), "the late holder's fenced write was rejected");
      try (Connection connection = database.dataSource().getConnection()) {
        assertEquals(1_000, runs(connection, 2), "the later holder's write stands");
      }
    }
  }

  private static int runs(Connection connection) throws SQLException {
    return runs(connection, 1);
  }

  /** Row 1 is written under the report lock's tokens, row 2 under the slow lock's: a row per lock name. */
  private static int runs(Connection connection, int id) throws SQLException {
    try (PreparedStatement query = connection.prepareStatement("SELECT runs FROM report WHERE id = " + id);
        ResultSet rs = query.executeQuery()) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private static long micros() {
    return TimeUnit.NANOSECONDS.toMicros(System.nanoTime());
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
