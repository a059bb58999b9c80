package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface LeaseInvalid {

  @IdempotentCommand(
      lease = "-PT30S")
  String capture(@IdempotencyKey String paymentId);
}
