package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface DuplicateScope {

  @IdempotentCommand(scope = "payments.charge")
  String charge(@IdempotencyKey String paymentId, long amountCents);

  @IdempotentCommand(scope = "payments.charge", retention = "P7D")
  String chargeAgain(@IdempotencyKey String paymentId, long amountCents);
}
