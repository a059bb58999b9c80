package dev.idem.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.faults.FaultContract.Tables;
import dev.idem.faults.Ledger.Entry;
import dev.idem.runtime.IdempotencyInProgressException;
import dev.idem.runtime.IdempotencyLeaseLostException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lease races, 20 rounds: caller A claims and stalls past its 0.4 s lease; caller B then sends the same command. In
 * even rounds A resumes only after B finished (B takes over and wins for sure); in odd rounds A resumes while B
 * starts (either may win). Exactly one completion wins every round, the loser (if any) gets
 * {@link IdempotencyLeaseLostException}, and the record and the business row hold the winner's result.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
abstract class LeaseRaceContract extends FaultContract {

  static final int ROUNDS = 20;
  /** Longer than the 0.4 s lease of {@link Ledger#chargeBriefly}. */
  static final long STALL_PAST_LEASE_MILLIS = 550;

  @Test
  void exactlyOneCompletionWinsEveryLeaseRace() throws Exception {
    int aLost = 0;
    int aWon = 0;
    int bToldInProgress = 0;
    ExecutorService callers = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < ROUNDS; round++) {
        String key = "race-" + round;
        CountDownLatch aStalls = new CountDownLatch(1);
        CountDownLatch resumeA = new CountDownLatch(1);
        AtomicBoolean first = new AtomicBoolean(true);
        delegate.pause = k -> {
          if (first.compareAndSet(true, false)) {
            aStalls.countDown();
            assertTrue(resumeA.await(10, TimeUnit.SECONDS));
          }
        };
        Future<Entry> a = callers.submit(() -> ledger.chargeBriefly(key, 100));
        assertTrue(aStalls.await(10, TimeUnit.SECONDS), "A is in its body");
        Thread.sleep(STALL_PAST_LEASE_MILLIS);

        Future<Entry> b;
        if (round % 2 == 0) {
          b = callers.submit(() -> ledger.chargeBriefly(key, 100));
          b.get(10, TimeUnit.SECONDS);
          resumeA.countDown();
        } else {
          b = callers.submit(() -> ledger.chargeBriefly(key, 100));
          Thread.sleep(ThreadLocalRandom.current().nextLong(0, 4));
          resumeA.countDown();
        }

        Entry bEntry;
        try {
          bEntry = b.get(10, TimeUnit.SECONDS); // B never loses its lease: nobody takes over from it
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof IdempotencyInProgressException)) {
            throw new AssertionError("B failed otherwise in round " + round + ": " + e.getCause(), e.getCause());
          }
          // A was completing (its open transaction holds the record): alive, so B is told to retry later.
          bToldInProgress++;
          try {
            a.get(10, TimeUnit.SECONDS);
          } catch (ExecutionException judgedBelow) {
            // A's outcome is checked below.
          }
          bEntry = ledger.chargeBriefly(key, 100);
        }
        Entry winner;
        try {
          Entry aEntry = a.get(10, TimeUnit.SECONDS);
          aWon++;
          assertEquals(aEntry, bEntry, "A completed first: B replayed A's result");
          assertEquals(1, delegate.externalEffects(key), "B replayed, it did not run");
          winner = aEntry;
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof IdempotencyLeaseLostException lost)) {
            throw new AssertionError("A failed otherwise in round " + round + ": " + e.getCause(), e.getCause());
          }
          aLost++;
          assertEquals(key, lost.key());
          assertEquals(2, delegate.externalEffects(key), "both ran: A stalled past its lease (documented)");
          winner = bEntry;
        }
        assertEquals("COMPLETED", state(CHARGE_BRIEFLY, key));
        assertEquals(winner.execution(),
            StormChecks.storedExecution(Tables.resultsByKey(database.dataSource(), CHARGE_BRIEFLY).get(key)),
            "the record holds the winner's result");
        assertEquals(1, businessRows(key), "only the winner's writes committed");
        assertEquals(winner.execution(), Tables.businessExecutionByKey(database.dataSource()).get(key));
        assertEquals(winner, ledger.chargeBriefly(key, 100), "a later retry replays the winner");
      }
    } finally {
      delegate.pause = k -> { };
      callers.shutdownNow();
    }
    System.out.println("FAULT LEASE RACES on " + database().displayName() + ": " + ROUNDS + " rounds, stalled owner"
        + " lost its lease " + aLost + " times, completed first " + aWon + " times (the second caller told to retry"
        + " while it completed " + bToldInProgress + " times), double completions 0");
    assertEquals(ROUNDS, aLost + aWon);
    assertTrue(aLost >= ROUNDS / 2, "every even round the stalled owner loses: " + aLost);
  }
}
