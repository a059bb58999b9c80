package com.example.payments;

import dev.idem.ExpiredLease;
import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.Mode;
import dev.idem.Reconciles;
import dev.idem.runtime.IdempotentResult;
import dev.idem.runtime.Reconciliation;

public interface ReconcilerUnknownCommand {

  @IdempotentCommand(mode = Mode.CLAIM, onExpiredLease = ExpiredLease.PARK)
  String charge(@IdempotencyKey String paymentId, long amountCents);

  @Reconciles("chrage")
  Reconciliation<String> reconcileCharge(String paymentId, long amountCents);
}
