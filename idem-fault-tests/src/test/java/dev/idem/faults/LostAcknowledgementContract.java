package dev.idem.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.faults.Ledger.Entry;
import dev.idem.faults.RecordingLedger.BusinessWriteFailed;
import dev.idem.runtime.IdempotencyCommitUnknownException;
import dev.idem.runtime.IdempotencyInProgressException;
import dev.idem.runtime.IdempotencyOutcomeUnknownException;
import dev.idem.runtime.IdempotencyStoreException;
import dev.idem.testing.FaultProxy.Fault;
import dev.idem.testing.TestDatabase;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A reply lost after the server executed the statement, and the connection cut: the caller cannot know what
 * happened. Whatever it is told, a retry must replay what committed or run what did not, never both.
 */
@Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
abstract class LostAcknowledgementContract extends FaultContract {

  @Test
  void aLostCommitAcknowledgementFailsTheCallerAndTheRetryReplaysTheCommittedWork() {
    proxy.loseReplyTo("COMMIT");
    IdempotencyCommitUnknownException failure =
        assertThrows(IdempotencyCommitUnknownException.class, () -> ledger.post("lost-commit", 10));
    assertTrue(failure.getMessage().contains("outcome is unknown"), failure.getMessage());
    assertEquals("lost-commit", failure.key());
    assertEquals(1, proxy.faults(Fault.LOST_REPLY));
    assertTrue(failure.getCause() instanceof SQLException, "the driver's failure is the cause");
    assertExactlyOnce(POST, "lost-commit"); // committed, although the caller got an error

    int executions = delegate.executions();
    Entry retried = ledger.post("lost-commit", 10);
    assertEquals(executions, delegate.executions(), "the retry replays, it does not run the body again");
    assertEquals(new Entry("lost-commit", 10, executions), retried);
    assertExactlyOnce(POST, "lost-commit");
  }

  @Test
  void aLostAcknowledgementOfTheClaimInsertRollsEverythingBackAndTheRetryRunsOnce() {
    proxy.loseReplyTo("INTO idem_record");
    assertThrows(IdempotencyStoreException.class, () -> ledger.post("lost-claim", 20));
    assertEquals(1, proxy.faults(Fault.LOST_REPLY));
    assertNull(state(POST, "lost-claim"), "the claim was executed, but its transaction died with the connection");
    assertEquals(0, businessRows("lost-claim"));

    assertEquals(20, ledger.post("lost-claim", 20).amount());
    assertExactlyOnce(POST, "lost-claim");
  }

  @Test
  void aLostAcknowledgementOfTheBodysStatementFailsTheBodyAndTheRetryRunsOnce() {
    proxy.loseReplyTo("INSERT INTO business");
    BusinessWriteFailed failure = assertThrows(BusinessWriteFailed.class, () -> ledger.post("lost-body", 30),
        "the body's own exception reaches the caller as it was thrown");
    assertTrue(failure.getCause() instanceof SQLException);
    assertNull(state(POST, "lost-body"));
    assertEquals(0, businessRows("lost-body"));

    ledger.post("lost-body", 30);
    assertExactlyOnce(POST, "lost-body");
  }

  @Test
  void claimModeALostClaimAcknowledgementHoldsTheKeyUntilTheLeaseEndsThenOneRetryRunsIt() throws Exception {
    proxy.loseReplyTo("INTO idem_record");
    assertThrows(IdempotencyStoreException.class, () -> ledger.chargeBriefly("lost-lease-claim", 40));
    assertEquals("IN_PROGRESS", state(CHARGE_BRIEFLY, "lost-lease-claim"), "the claim committed on its own");
    assertEquals(0, delegate.externalEffects("lost-lease-claim"), "but the body never ran");
    assertThrows(IdempotencyInProgressException.class, () -> ledger.chargeBriefly("lost-lease-claim", 40),
        "nobody knows the owner is gone until its lease ends");

    Thread.sleep(600); // the 0.4 s lease ends
    assertEquals(40, ledger.chargeBriefly("lost-lease-claim", 40).amount());
    assertEquals(1, delegate.externalEffects("lost-lease-claim"));
    assertExactlyOnce(CHARGE_BRIEFLY, "lost-lease-claim");
  }

  @Test
  void claimModeALostCommitAcknowledgementOfTheCompletionIsReplayedNotRerun() {
    proxy.loseReplyTo("COMMIT");
    assertThrows(IdempotencyCommitUnknownException.class, () -> ledger.charge("lost-completion-commit", 50),
        "the completion committed, so it could not be marked OUTCOME_UNKNOWN: a retry settles it");
    assertEquals(1, proxy.faults(Fault.LOST_REPLY));
    assertEquals(1, delegate.externalEffects("lost-completion-commit"));
    assertExactlyOnce(CHARGE, "lost-completion-commit");

    assertEquals(50, ledger.charge("lost-completion-commit", 50).amount());
    assertEquals(1, delegate.externalEffects("lost-completion-commit"), "replayed: charged once");
  }

  @Test
  void claimModeALostAcknowledgementOfTheCompletionNeverLetsARetryChargeAgain() {
    proxy.loseReplyTo("SET state = 'COMPLETED'");
    if (database() == TestDatabase.POSTGRESQL) {
      // There the completion carries the COMMIT (one round trip): its lost reply is a lost commit acknowledgement.
      // It committed, so the fenced OUTCOME_UNKNOWN mark finds the claim completed, not ours: the caller is told the
      // outcome is unknown and a retry replays it.
      assertThrows(IdempotencyCommitUnknownException.class, () -> ledger.charge("lost-completion", 60));
      assertEquals(1, proxy.faults(Fault.LOST_REPLY));
      assertEquals(1, delegate.externalEffects("lost-completion"), "the body ran and charged");
      assertExactlyOnce(CHARGE, "lost-completion");
      assertEquals(60, ledger.charge("lost-completion", 60).amount());
      assertEquals(1, delegate.externalEffects("lost-completion"), "replayed: a retry never charges again");
      return;
    }
    IdempotencyOutcomeUnknownException unknown =
        assertThrows(IdempotencyOutcomeUnknownException.class, () -> ledger.charge("lost-completion", 60));
    assertTrue(unknown.recorded(), "marked on a fresh connection: " + unknown.getMessage());
    assertEquals(1, proxy.faults(Fault.LOST_REPLY));
    assertEquals(1, delegate.externalEffects("lost-completion"), "the body ran and charged");
    assertEquals(0, businessRows("lost-completion"), "its writes died with the completion's transaction");
    assertEquals("OUTCOME_UNKNOWN", state(CHARGE, "lost-completion"));

    assertThrows(IdempotencyOutcomeUnknownException.class, () -> ledger.charge("lost-completion", 60),
        "the outcome is unknown: a retry must not run the charge again");
    assertEquals(1, delegate.externalEffects("lost-completion"));
  }
}
