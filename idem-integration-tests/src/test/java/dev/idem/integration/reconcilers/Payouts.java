package dev.idem.integration.reconcilers;

import dev.idem.ExpiredLease;
import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.Mode;
import dev.idem.Reconciles;
import dev.idem.UndeclaredFailure;
import dev.idem.runtime.Reconciliation;

/** A CLAIM command that parks its unknown outcomes, and its reconciler: the generated class wires them. */
public interface Payouts {

  @IdempotentCommand(scope = "it.payouts.payOut", mode = Mode.CLAIM, lease = "PT30S",
      onExpiredLease = ExpiredLease.PARK, onUndeclaredFailure = UndeclaredFailure.PARK)
  String payOut(@IdempotencyKey String payoutId, long amountCents);

  /** Asks the (fake) bank whether the payout with these arguments went out. */
  @Reconciles("payOut")
  Reconciliation<String> reconcilePayOut(String payoutId, long amountCents);

  @IdempotentCommand(scope = "it.payouts.notify", mode = Mode.CLAIM, onUndeclaredFailure = UndeclaredFailure.PARK)
  void notifyPayee(@IdempotencyKey String payoutId);

  @Reconciles("notifyPayee")
  Reconciliation<Void> reconcileNotifyPayee(String payoutId);
}
