package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface WaitTimeoutInvalid {

  @IdempotentCommand(
      waitTimeout = "10 seconds")
  String capture(@IdempotencyKey String paymentId);
}
