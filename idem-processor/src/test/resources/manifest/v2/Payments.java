package com.example.manifest;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** The next version: pay was renamed (its default scope with it), and Receipt gained a component. */
public interface Payments {

  record Receipt(String id, long amountCents, String currency) {}

  @IdempotentCommand
  Receipt charge(@IdempotencyKey String requestId, long amountCents);

  @IdempotentCommand(scope = "payments.refund", retention = "P7D")
  Receipt refund(@IdempotencyKey String refundId);
}
