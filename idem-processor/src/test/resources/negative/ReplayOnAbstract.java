package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface ReplayOnAbstract {

  @IdempotentCommand(
      replayOn = ReplayOnAbstract.Declined.class)
  String capture(@IdempotencyKey String paymentId);

  abstract class Declined extends RuntimeException {
    private static final long serialVersionUID = 1L;

    protected Declined(String message) {
      super(message);
    }
  }
}
