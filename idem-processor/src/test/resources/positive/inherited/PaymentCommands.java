package com.example.payments;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** Commands shared by every payment method. */
public interface PaymentCommands {

  @IdempotentCommand
  String authorize(@IdempotencyKey String paymentId, long amountCents);

  String status(String paymentId);
}
