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
  void claimModeAnUnknownOutcomeThatCannotBeRecordedAtOnceIsRecordedOnceTheDatabaseIsBackAndNoRetryChargesAgain() {
    // Every connection dies while the body runs and no new one is let through: the completion fails, and so does
    // recording OUTCOME_UNKNOWN. idem keeps trying in the background while the lease runs.
    delegate.pause = key -> {
      proxy.refuseNewConnections(true);
      proxy.cutAll();
    };
    IdempotencyOutcomeUnknownException unknown =
        assertThrows(IdempotencyOutcomeUnknownException.class, () -> ledger.charge("unrecorded", 8));
    assertFalse(unknown.recorded(), unknown.getMessage());
    delegate.pause = key -> { };
    proxy.heal();
    awaitState(CHARGE, "unrecorded", "OUTCOME_UNKNOWN");

    assertThrows(IdempotencyOutcomeUnknownException.class, () -> ledger.charge("unrecorded", 8));
    assertEquals(1, delegate.externalEffects("unrecorded"));
    assertEquals(0, businessRows("unrecorded"));
  }

  /**
   * The completion's UPDATE went through, its COMMIT is cut and no other connection can be had: the caller gets
   * {@link IdempotencyOutcomeUnknownException}, not yet recorded, which says what a retry meets; once the database
   * is back, OUTCOME_UNKNOWN is recorded in the background (the COMMIT never arrived), and no retry charges again.
   */
  @Test
  void claimModeACutCommitOfTheCompletionWithNothingRecordableIsRecordedAsUnknownOnceTheDatabaseIsBack() {
    delegate.pause = key -> {
      pool.getHikariPoolMXBean().softEvictConnections(); // no idle connection to record anything on
      proxy.refuseNewConnections(true);
      proxy.cutMidStatement("COMMIT");
    };
    IdempotencyOutcomeUnknownException unknown =
        assertThrows(IdempotencyOutcomeUnknownException.class, () -> ledger.charge("commit-unrecorded", 9));
    assertFalse(unknown.recorded(), unknown.getMessage());
    assertTrue(unknown.getMessage().contains("if that commit went through after all, a retry replays its result"),
        unknown.getMessage());
    delegate.pause = key -> { };
    proxy.heal();
    awaitState(CHARGE, "commit-unrecorded", "OUTCOME_UNKNOWN");

    assertThrows(IdempotencyOutcomeUnknownException.class, () -> ledger.charge("commit-unrecorded", 9));
    assertEquals(1, delegate.externalEffects("commit-unrecorded"));
    assertEquals(0, businessRows("commit-unrecorded"), "the COMMIT never arrived");
  }

  private void awaitState(String scope, String key, String expected) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
    while (!expected.equals(state(scope, key))) {
      assertTrue(System.nanoTime() < deadline, key + " is still " + state(scope, key) + ", not " + expected);
      Storm.pause(50);
    }
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
