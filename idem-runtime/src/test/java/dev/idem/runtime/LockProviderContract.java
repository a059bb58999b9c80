package dev.idem.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The contract of every {@link LockProvider}, through its public interface and the runtime's single-flight runner on
 * top of it: one holder at a time (also when callers race), fencing tokens that strictly increase per name,
 * {@code lockAtMostFor} (a lease nobody renews ends then, not before), {@code lockAtLeastFor} (a release keeps the
 * lock that long after its acquisition), renewal and release fenced by the owner token, the watchdog's renewals, and
 * a lease taken by another instance interrupting the body. The JDBC provider runs it on H2, PostgreSQL and MariaDB
 * (idem-runtime), the Redis provider on standalone Redis (idem-redis); shipped in idem-runtime's test jar.
 *
 * <p>A subclass gives a runtime whose {@link IdemRuntime#lockProvider()} is the provider under test, a way to make
 * "another instance" take a held lock over, and a store with no lock of the names used here before each test.
 */
@Timeout(90)
public abstract class LockProviderContract {

  /** What the runtime's listener heard ({@code lockLost name token}). */
  protected final List<String> lockEvents = new CopyOnWriteArrayList<>();
  private IdemRuntime runtime;
  private LockProvider locks;

  /**
   * @param listener the listener the runtime must report to
   * @return a new runtime whose lock provider is the one under test
   */
  protected abstract IdemRuntime newRuntime(IdempotencyListener listener);

  /**
   * Another instance takes the held lock {@code name} over, as after a long pause of its holder: the holder's owner
   * token no longer matches, and the fencing token increased.
   *
   * @param name the lock
   */
  protected abstract void takeOver(String name);

  /** Before each test: a runtime with the provider under test. */
  @BeforeEach
  void startRuntime() {
    lockEvents.clear();
    runtime = newRuntime(new IdempotencyListener() {
      @Override
      public void lockLost(String lockName, long fencingToken) {
        lockEvents.add("lockLost " + lockName + " " + fencingToken);
      }
    });
    locks = runtime.lockProvider();
  }

  /** After each test: the runtime closed. */
  @AfterEach
  void closeRuntime() {
    runtime.close();
  }

  @Test
  void oneHolderAtATimeAndEveryAcquisitionGetsAGreaterFencingToken() {
    LockLease first = locks.tryAcquire("job", Duration.ofMinutes(1)).orElseThrow();
    assertEquals(Optional.empty(), locks.tryAcquire("job", Duration.ofMinutes(1)), "held: nobody else gets it");
    assertTrue(locks.tryAcquire("other-job", Duration.ofMinutes(1)).isPresent(), "locks are independent");
    assertTrue(locks.release(first, Duration.ZERO));
    LockLease second = locks.tryAcquire("job", Duration.ofMinutes(1)).orElseThrow();
    assertTrue(second.fencingToken() > first.fencingToken(), second + " after " + first);
    assertFalse(locks.release(first, Duration.ZERO), "a release is fenced by its owner token");
    assertFalse(locks.renew(first, Duration.ofMinutes(1)), "and so is a renewal");
    assertEquals(Optional.empty(), locks.tryAcquire("job", Duration.ofMinutes(1)), "the stale calls changed nothing");
    assertTrue(locks.release(second, Duration.ZERO));
    assertFalse(locks.release(second, Duration.ZERO), "a lease is released once");
    assertFalse(locks.renew(second, Duration.ofMinutes(1)), "a released lease cannot be renewed");
    assertTrue(locks.tryAcquire("job", Duration.ofMinutes(1)).isPresent(), "and the stale calls did not hold it");
  }

  @Test
  void aLeaseThatEndedIsNotReleasedEvenIfNobodyTookIt() throws Exception {
    LockLease ended = locks.tryAcquire("ended", Duration.ofMillis(300)).orElseThrow();
    LockLease endedToo = locks.tryAcquire("ended-too", Duration.ofMillis(300)).orElseThrow();
    Thread.sleep(600); // past both leases, on any clock
    assertFalse(locks.release(ended, Duration.ZERO), "another instance could have held it meanwhile: lost");
    assertFalse(locks.release(endedToo, Duration.ofMinutes(1)), "also with a lockAtLeastFor, which must not extend it");
    assertTrue(locks.tryAcquire("ended-too", Duration.ofMinutes(1)).isPresent(), "the refused release held nothing");
  }

  @Test
  void racingAcquisitionsHaveOneWinnerAndTokensKeepIncreasing() throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(8);
    try {
      long previous = Long.MIN_VALUE;
      for (int round = 0; round < 10; round++) {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Optional<LockLease>>> attempts = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
          attempts.add(threads.submit(() -> {
            go.await();
            return locks.tryAcquire("race", Duration.ofMinutes(1));
          }));
        }
        go.countDown();
        List<LockLease> won = new ArrayList<>();
        for (Future<Optional<LockLease>> attempt : attempts) {
          attempt.get(30, TimeUnit.SECONDS).ifPresent(won::add);
        }
        assertEquals(1, won.size(), "round " + round + ": " + won);
        assertTrue(won.get(0).fencingToken() > previous, won.get(0) + " after token " + previous);
        previous = won.get(0).fencingToken();
        assertTrue(locks.release(won.get(0), Duration.ZERO));
      }
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void anUnreleasedLeaseEndsAfterLockAtMostForAndNotBefore() throws Exception {
    long taken = System.nanoTime(); // before the call: the lease starts no earlier
    LockLease crashed = locks.tryAcquire("job", Duration.ofMillis(800)).orElseThrow();
    Optional<LockLease> next = awaitAcquisition("job");
    long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - taken);
    assertTrue(waitedMillis >= 800, "taken over after " + waitedMillis + " ms of an 800 ms lease");
    assertTrue(next.orElseThrow().fencingToken() > crashed.fencingToken());
    assertFalse(locks.renew(crashed, Duration.ofMinutes(1)), "the old holder's renewal is refused");
    assertFalse(locks.release(crashed, Duration.ZERO), "and so is its release");
  }

  @Test
  void aRenewalExtendsTheLeaseFromNow() throws Exception {
    // Leases of seconds, not hundreds of milliseconds: on a loaded machine a thread can be descheduled for a few
    // hundred, which must not end the first lease before the renewal (seen in CI at a load of 15 on two cores).
    LockLease lease = locks.tryAcquire("renewed", Duration.ofMillis(1_500)).orElseThrow();
    Thread.sleep(400);
    long renewedAt = System.nanoTime();
    assertTrue(locks.renew(lease, Duration.ofMillis(2_500)));
    Thread.sleep(1_300); // past the first lease's end, within the renewed one
    if (System.nanoTime() - renewedAt < TimeUnit.MILLISECONDS.toNanos(2_400)) { // not descheduled for too long
      assertEquals(Optional.empty(), locks.tryAcquire("renewed", Duration.ofMinutes(1)), "the renewal held");
    }
    Optional<LockLease> next = awaitAcquisition("renewed");
    long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - renewedAt);
    assertTrue(waitedMillis >= 2_500, "taken after " + waitedMillis + " ms of a 2.5 s renewed lease");
    assertTrue(next.orElseThrow().fencingToken() > lease.fencingToken());
  }

  @Test
  void aReleasedLockStaysHeldUntilLockAtLeastForHasPassedSinceItWasTaken() throws Exception {
    long taken = System.nanoTime(); // before the call: the lease starts no earlier
    LockLease lease = locks.tryAcquire("job", Duration.ofMinutes(1)).orElseThrow();
    assertTrue(locks.release(lease, Duration.ofMillis(700)));
    assertFalse(locks.renew(lease, Duration.ofMinutes(1)), "a released lease cannot be renewed");
    awaitAcquisition("job");
    long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - taken);
    assertTrue(waitedMillis >= 700, "free again after " + waitedMillis + " ms of lockAtLeastFor 700 ms");
  }

  @Test
  void singleFlightBodiesNeverOverlapAndRunInFencingTokenOrder() throws Exception {
    AtomicInteger running = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
    ExecutorService threads = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> calls = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        calls.add(threads.submit(() -> {
          for (int i = 0; i < 40; i++) {
            runtime.runSingleFlight("fuzz", Duration.ofSeconds(30), Duration.ZERO, () -> {
              if (running.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
              }
              tokens.add(runtime.fencingToken());
              running.decrementAndGet();
            });
          }
          return null;
        }));
      }
      for (Future<?> call : calls) {
        call.get();
      }
    } finally {
      threads.shutdownNow();
    }
    assertEquals(0, overlaps.get());
    assertTrue(tokens.size() >= 8, "ran " + tokens.size() + " times");
    for (int i = 1; i < tokens.size(); i++) {
      assertTrue(tokens.get(i) > tokens.get(i - 1), "token " + tokens.get(i) + " after " + tokens.get(i - 1));
    }
  }

  @Test
  void theWatchdogKeepsALongBodysLease() {
    AtomicBoolean othersGotIt = new AtomicBoolean();
    Optional<String> result = runtime.singleFlight("long", Duration.ofMillis(1_500), Duration.ZERO, () -> {
      long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(4_000);
      while (System.nanoTime() < end) {
        if (locks.tryAcquire("long", Duration.ofMinutes(1)).isPresent()) {
          othersGotIt.set(true);
        }
        pause(50);
      }
      return "done";
    });
    assertEquals(Optional.of("done"), result, "a body over two lockAtMostFor long kept its lease");
    assertFalse(othersGotIt.get(), "nobody took the lease while the watchdog renewed it");
    assertTrue(locks.tryAcquire("long", Duration.ofMinutes(1)).isPresent(), "released at the end");
    assertTrue(lockEvents.isEmpty(), lockEvents.toString());
  }

  @Test
  void aTakenLeaseInterruptsTheBodyFiresTheListenerAndFailsTheCall() {
    AtomicBoolean interrupted = new AtomicBoolean();
    AtomicLong token = new AtomicLong();
    SingleFlightLockLostException lost = assertThrows(SingleFlightLockLostException.class,
        () -> runtime.runSingleFlight("taken", Duration.ofMillis(900), Duration.ZERO, () -> {
          token.set(runtime.fencingToken());
          takeOver("taken");
          try {
            Thread.sleep(10_000);
          } catch (InterruptedException e) {
            interrupted.set(true);
          }
        }));
    assertTrue(interrupted.get(), "the body was interrupted");
    assertFalse(Thread.currentThread().isInterrupted(), "the caller's thread is not left interrupted");
    assertEquals("taken", lost.lockName());
    assertEquals(token.get(), lost.fencingToken());
    assertEquals(List.of("lockLost taken " + token.get()), lockEvents);
  }

  /** @return the provider under test, as the runtime holds it */
  protected final LockProvider locks() {
    return locks;
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private Optional<LockLease> awaitAcquisition(String name) throws InterruptedException {
    Optional<LockLease> next = Optional.empty();
    while (next.isEmpty()) {
      next = locks.tryAcquire(name, Duration.ofMinutes(1));
      if (next.isEmpty()) {
        Thread.sleep(20);
      }
    }
    return next;
  }
}
