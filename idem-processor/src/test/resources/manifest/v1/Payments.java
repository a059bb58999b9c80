package com.example.manifest;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** The released version: its manifest is what the next build is checked against. */
public interface Payments {

  record Receipt(String id, long amountCents) {}

  @IdempotentCommand
  Receipt pay(@IdempotencyKey String requestId, long amountCents);

  @IdempotentCommand(scope = "payments.refund", retention = "P7D")
  Receipt refund(@IdempotencyKey String refundId);
}
