package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface ScopeInvalid {

  @IdempotentCommand(
      scope = "payments/charge")
  String charge(@IdempotencyKey String paymentId, long amountCents);
}
