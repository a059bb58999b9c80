package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.Mode;

public interface ModeClaim {

  @IdempotentCommand(
      mode = Mode.CLAIM)
  String capture(@IdempotencyKey String paymentId);
}
