package com.example.manifest;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** Payments was renamed to Billing: every default scope of Payments is gone. */
public interface Billing {

  @IdempotentCommand(scope = "billing.close")
  String close(@IdempotencyKey String requestId);
}
