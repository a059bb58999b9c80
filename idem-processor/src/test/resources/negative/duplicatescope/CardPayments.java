package com.example.payments;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface CardPayments {

  @IdempotentCommand(scope = "payments.charge")
  String charge(@IdempotencyKey String paymentId, long amountCents);
}
