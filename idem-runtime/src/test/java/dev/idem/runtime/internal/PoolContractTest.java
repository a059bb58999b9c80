package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.InFlight;
import dev.idem.Mode;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyInProgressException;
import dev.idem.testing.DatabaseContract;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Tiny pools (issue #10, item 4): with one or two connections and a 2 s pool timeout (so that waiting on the pool
 * fails the test instead of hanging it), a CLAIM call, its lease extensions and WAIT callers complete, and
 * housekeeping inside a transaction fails fast instead of waiting for the thread's own connection.
 */
@Timeout(60)
abstract class PoolContractTest extends DatabaseContract {

  private static final CommandSpec<String> CHARGE = spec("Pools.charge", InFlight.FAIL);
  private static final CommandSpec<String> CHARGE_WAITING = spec("Pools.chargeWaiting", InFlight.WAIT);
  private static final CommandSpec<String> RECORD = CommandSpec.builder("Pools.record", ResultType.of(String.class))
      .keyParts("id").build();

  private static CommandSpec<String> spec(String scope, InFlight onInFlight) {
    return CommandSpec.builder(scope, ResultType.of(String.class)).mode(Mode.CLAIM).lease(Duration.ofSeconds(30))
        .onInFlight(onInFlight).waitTimeout(Duration.ofSeconds(20)).keyParts("id").build();
  }

  @Override
  protected void prepare() {
    IdemRuntime.builder().dataSource(database.dataSource()).build().createSchema();
  }

  /** Runs {@code test} with a runtime on a pool of {@code size} connections that fails a borrow after 2 s. */
  private void withPool(int size, Consumer<IdemRuntime> test) {
    database.execute("DELETE FROM idem_record");
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(database.url());
    config.setUsername(database.user());
    config.setPassword(database.password());
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(size);
    config.setConnectionTimeout(2_000);
    config.setPoolName("idem-pool-" + size);
    try (HikariDataSource pool = new HikariDataSource(config)) {
      test.accept(IdemRuntime.builder().dataSource(pool).build());
    }
  }

  private static String charge(IdemRuntime runtime, CommandSpec<String> spec, String id, CommandBody<String> body) {
    return IdemEngine.of(runtime).execute(spec, new Object[] {id}, new Object[0], body);
  }

  @Test
  void aClaimAndItsLeaseExtensionsNeedOneConnection() {
    withPool(1, runtime -> {
      long start = System.nanoTime();
      assertEquals("done", charge(runtime, CHARGE, "p-1", () -> {
        assertTrue(runtime.extendLease(Duration.ofSeconds(60)));
        assertTrue(runtime.extendLease(Duration.ofSeconds(90)));
        return "done";
      }));
      assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 2_000, "never waited on the pool");
      assertEquals("done", charge(runtime, CHARGE, "p-1", () -> "replayed, not run"));
    });
  }

  /**
   * Pool of two: the owner's body holds one connection and extends its lease; two WAIT callers poll meanwhile, and an
   * unrelated command still gets a connection (waiters do not sleep on one). Everybody gets the owner's result.
   */
  @Test
  void waitingCallersDoNotHoldAConnectionWhileTheyWait() throws Exception {
    withPool(2, runtime -> {
      ExecutorService callers = Executors.newFixedThreadPool(3);
      CountDownLatch ownerStarted = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      AtomicInteger bodies = new AtomicInteger();
      try {
        Future<String> owner = callers.submit(() -> charge(runtime, CHARGE_WAITING, "p-2", () -> {
          bodies.incrementAndGet();
          ownerStarted.countDown();
          assertTrue(release.await(30, TimeUnit.SECONDS));
          assertTrue(runtime.extendLease(Duration.ofSeconds(60)), "extends on its own connection");
          return "owner's result";
        }));
        assertTrue(ownerStarted.await(30, TimeUnit.SECONDS));
        List<Future<String>> waiters = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
          waiters.add(callers.submit(() -> charge(runtime, CHARGE_WAITING, "p-2", () -> {
            bodies.incrementAndGet();
            return "a waiter ran";
          })));
        }
        Thread.sleep(300); // the waiters poll
        for (int i = 0; i < 5; i++) {
          String id = "r-" + i;
          assertEquals(id, IdemEngine.of(runtime).execute(RECORD, new Object[] {id}, new Object[0], () -> id),
              "an unrelated command gets a connection while two callers wait");
        }
        assertFalse(waiters.get(0).isDone());
        release.countDown();
        assertEquals("owner's result", owner.get(30, TimeUnit.SECONDS));
        for (Future<String> waiter : waiters) {
          assertEquals("owner's result", waiter.get(30, TimeUnit.SECONDS));
        }
        assertEquals(1, bodies.get());
      } catch (Exception e) {
        throw new AssertionError(e);
      } finally {
        release.countDown();
        callers.shutdownNow();
      }
    });
  }

  /** After an extension, a competitor seeing the old (committed) lease ended finds the owner alive: no takeover. */
  @Test
  void anExtendedLeaseIsNotTakenOverWhileItsOwnerWorks() throws Exception {
    withPool(2, runtime -> {
      ExecutorService competitor = Executors.newSingleThreadExecutor();
      try {
        CommandSpec<String> shortLease = CommandSpec.builder("Pools.shortLease", ResultType.of(String.class))
            .mode(Mode.CLAIM).lease(Duration.ofMillis(300)).onInFlight(InFlight.FAIL).keyParts("id").build();
        assertEquals("owner", charge(runtime, shortLease, "p-3", () -> {
          assertTrue(runtime.extendLease(Duration.ofSeconds(30)));
          Thread.sleep(600); // the committed lease (300 ms) has ended; the extension is not committed yet
          long start = System.nanoTime();
          Future<String> intruder = competitor.submit(() -> charge(runtime, shortLease, "p-3", () -> "intruder"));
          Throwable failure = assertThrows(java.util.concurrent.ExecutionException.class,
              () -> intruder.get(30, TimeUnit.SECONDS)).getCause();
          assertTrue(failure instanceof IdempotencyInProgressException, String.valueOf(failure));
          assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 2_000, "failed fast");
          return "owner";
        }));
      } finally {
        competitor.shutdownNow();
      }
    });
  }

  /** Pool of one, held by the owner's body: a WAIT caller fails after the pool timeout, with a clear error. */
  @Test
  void aWaitingCallerOnAPoolOfOneHeldByTheOwnerFailsFast() {
    withPool(1, runtime -> {
      ExecutorService waiter = Executors.newSingleThreadExecutor();
      try {
        assertEquals("owner", charge(runtime, CHARGE_WAITING, "p-4", () -> {
          long start = System.nanoTime();
          Throwable failure = assertThrows(java.util.concurrent.ExecutionException.class,
              () -> waiter.submit(() -> charge(runtime, CHARGE_WAITING, "p-4", () -> "waiter ran"))
                  .get(30, TimeUnit.SECONDS)).getCause();
          assertTrue(failure instanceof dev.idem.runtime.IdempotencyStoreException, String.valueOf(failure));
          assertTrue(failure.getMessage().contains("Cannot obtain a connection"), failure.getMessage());
          assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 5_000, "the pool's 2 s timeout");
          return "owner";
        }));
      } finally {
        waiter.shutdownNow();
      }
    });
  }

  @Test
  void housekeepingInsideATransactionFailsFastOnAPoolOfOne() {
    withPool(1, runtime -> {
      long start = System.nanoTime();
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> runtime.runInTransaction(connection -> runtime.purgeExpired(100)));
      assertTrue(e.getMessage().contains("outside runtime.inTransaction"), e.getMessage());
      assertThrows(IllegalStateException.class,
          () -> runtime.runInTransaction(connection -> runtime.inspect("Pools.charge", "x")));
      assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 2_000, "failed fast");
      assertEquals(0, runtime.purgeExpired(100), "outside a transaction it runs");
    });
  }
}
