package dev.idem.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.faults.RecordingLedger.BusinessWriteFailed;
import dev.idem.runtime.IdempotencyCommitUnknownException;
import dev.idem.runtime.IdempotencyOutcomeUnknownException;
import dev.idem.runtime.IdempotencyStoreException;
import dev.idem.testing.FaultProxy.Fault;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Connections cut before the server got the whole statement, all at once, or refused: nothing that did not commit
 * may count, and a retry once the network heals runs the command exactly once; no record is left behind.
 */
@Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
abstract class ConnectionCutContract extends FaultContract {

  @Test
  void aCutInTheMiddleOfTheClaimLeavesNothingAndTheRetryRunsOnce() {
    proxy.cutMidStatement("INTO idem_record");
    assertThrows(IdempotencyStoreException.class, () -> ledger.post("cut-claim", 1));
    assertEquals(1, proxy.faults(Fault.CUT_MID_STATEMENT));
    assertNull(state(POST, "cut-claim"));

    ledger.post("cut-claim", 1);
    assertExactlyOnce(POST, "cut-claim");
  }

  @Test
  void aCutInTheMiddleOfTheBodysStatementFailsTheBodyAndTheRetryRunsOnce() {
    proxy.cutMidStatement("INSERT INTO business");
    assertThrows(BusinessWriteFailed.class, () -> ledger.post("cut-body", 2));
    assertNull(state(POST, "cut-body"));
    assertEquals(0, businessRows("cut-body"));

    ledger.post("cut-body", 2);
    assertExactlyOnce(POST, "cut-body");
  }

  @Test
  void aCutInTheMiddleOfTheCommitRollsBackAndTheRetryRunsOnce() {
    proxy.cutMidStatement("COMMIT");
    assertThrows(IdempotencyCommitUnknownException.class, () -> ledger.post("cut-commit", 3),
        "the caller cannot know whether the COMMIT arrived");
    assertEquals(1, proxy.faults(Fault.CUT_MID_STATEMENT));
    assertNull(state(POST, "cut-commit"), "the server never got the whole COMMIT");
    assertEquals(0, businessRows("cut-commit"));

    ledger.post("cut-commit", 3);
    assertExactlyOnce(POST, "cut-commit");
  }

  @Test
  void cuttingEveryConnectionWhileTheBodyRunsFailsTheCallAndTheRetryRunsOnce() throws Exception {
    CountDownLatch inBody = new CountDownLatch(1);
    CountDownLatch cut = new CountDownLatch(1);
    delegate.pause = key -> {
      inBody.countDown();
      cut.await(10, TimeUnit.SECONDS);
    };
    ExecutorService caller = Executors.newSingleThreadExecutor();
    try {
      Future<?> call = caller.submit(() -> ledger.post("cut-all", 4));
      assertTrue(inBody.await(10, TimeUnit.SECONDS));
      proxy.cutAll();
      cut.countDown();
      Throwable failure = assertThrows(Exception.class, () -> call.get(15, TimeUnit.SECONDS)).getCause();
      assertTrue(failure instanceof IdempotencyStoreException, "completing on a cut connection: " + failure);
    } finally {
      caller.shutdownNow();
    }
    delegate.pause = key -> { };
    assertNull(state(POST, "cut-all"));
    assertEquals(0, businessRows("cut-all"));

    ledger.post("cut-all", 4);
    assertExactlyOnce(POST, "cut-all");
  }

  @Test
  void refusedConnectionsFailTheCallWithinThePoolTimeoutAndTheRetryAfterHealingRunsOnce() {
    ledger.post("warm-up", 0); // the pool holds a connection...
    proxy.refuseNewConnections(true);
    proxy.cutAll(); // ...which dies, and no new one is let through
    long started = System.nanoTime();
    assertThrows(IdempotencyStoreException.class, () -> ledger.post("refused", 5));
    assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(10), "fails within the pool's timeout");
    assertNull(state(POST, "refused"));

    proxy.heal();
    ledger.post("refused", 5);
    assertExactlyOnce(POST, "refused");
  }

  @Test
  void claimModeACutInTheMiddleOfTheCompletionNeverLetsARetryChargeAgain() {
    proxy.cutMidStatement("SET state = 'COMPLETED'");
    assertThrows(IdempotencyOutcomeUnknownException.class, () -> ledger.charge("cut-completion", 6));
    assertEquals(1, delegate.externalEffects("cut-completion"), "the body ran and charged");
    assertEquals(0, businessRows("cut-completion"));
    assertEquals("OUTCOME_UNKNOWN", state(CHARGE, "cut-completion"));

    assertThrows(IdempotencyOutcomeUnknownException.class, () -> ledger.charge("cut-completion", 6),
        "the outcome is unknown: a retry must not run the charge again");
    assertEquals(1, delegate.externalEffects("cut-completion"));
  }

  @Test
  void claimModeWhenNotEvenTheUnknownOutcomeCanBeRecordedTheClaimHoldsUntilItsLeaseEndsThenARetryRunsAgain()
      throws InterruptedException {
    // Every connection dies while the body runs and no new one is let through: the completion fails, and so does
    // recording OUTCOME_UNKNOWN. The claim then holds until its lease ends, as after a crash (the caller is told).
    delegate.pause = key -> {
      proxy.refuseNewConnections(true);
      proxy.cutAll();
    };
    IdempotencyOutcomeUnknownException unknown =
        assertThrows(IdempotencyOutcomeUnknownException.class, () -> ledger.chargeBriefly("unrecorded", 8));
    assertFalse(unknown.recorded(), unknown.getMessage());
    delegate.pause = key -> { };
    proxy.heal();
    assertEquals("IN_PROGRESS", state(CHARGE_BRIEFLY, "unrecorded"));
    assertEquals(1, delegate.externalEffects("unrecorded"));

    Thread.sleep(600); // the 0.4 s lease ends
    ledger.chargeBriefly("unrecorded", 8);
    assertEquals(2, delegate.externalEffects("unrecorded"),
        "what the exception said: after the lease a retry runs the command again");
    assertExactlyOnce(CHARGE_BRIEFLY, "unrecorded");
  }

  /**
   * The completion's UPDATE went through, its COMMIT is cut and no other connection can be had: nothing can be
   * recorded. Today the caller gets {@link IdempotencyCommitUnknownException} ("a retry ... runs the command if it
   * did not" commit), the claim holds until its lease ends, and then a retry runs the body, and its external effect,
   * a second time. (An {@code IdempotencyOutcomeUnknownException} with {@code recorded()} false would say more
   * plainly that the body's effects already happened; the storms across kill -9 meet this case.)
   */
  @Test
  void claimModeACutCommitOfTheCompletionWithNothingRecordableHoldsTheClaimUntilItsLeaseEndsThenRunsAgain()
      throws InterruptedException {
    delegate.pause = key -> {
      pool.getHikariPoolMXBean().softEvictConnections(); // no idle connection to record anything on
      proxy.refuseNewConnections(true);
      proxy.cutMidStatement("COMMIT");
    };
    IdempotencyCommitUnknownException unknown = assertThrows(IdempotencyCommitUnknownException.class,
        () -> ledger.chargeBriefly("commit-unrecorded", 9));
    assertTrue(unknown.getMessage().contains("runs the command if it did not"), unknown.getMessage());
    delegate.pause = key -> { };
    proxy.heal();
    assertEquals("IN_PROGRESS", state(CHARGE_BRIEFLY, "commit-unrecorded"), "the COMMIT never arrived");
    assertEquals(1, delegate.externalEffects("commit-unrecorded"));

    Thread.sleep(600); // the 0.4 s lease ends
    ledger.chargeBriefly("commit-unrecorded", 9);
    assertEquals(2, delegate.externalEffects("commit-unrecorded"), "the retry after the lease charged again");
    assertExactlyOnce(CHARGE_BRIEFLY, "commit-unrecorded");
  }

  @Test
  void claimModeACutInTheMiddleOfTheClaimLeavesNothingAndTheRetryRunsOnce() {
    proxy.cutMidStatement("INTO idem_record");
    assertThrows(IdempotencyStoreException.class, () -> ledger.charge("cut-lease-claim", 7));
    assertNull(state(CHARGE, "cut-lease-claim"));
    assertEquals(0, delegate.externalEffects("cut-lease-claim"));

    ledger.charge("cut-lease-claim", 7);
    assertEquals(1, delegate.externalEffects("cut-lease-claim"));
    assertExactlyOnce(CHARGE, "cut-lease-claim");
  }
}
