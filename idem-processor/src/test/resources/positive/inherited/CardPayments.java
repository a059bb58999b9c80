package com.example.payments;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** Adds a command; authorize and status are inherited and must be implemented by CardPayments_Idempotent. */
public interface CardPayments extends PaymentCommands {

  @IdempotentCommand
  void capture(@IdempotencyKey String paymentId);

  /** Redeclared: still the one inherited command, implemented once. */
  @Override
  String status(String paymentId);
}
