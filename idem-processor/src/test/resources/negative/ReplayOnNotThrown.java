package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface ReplayOnNotThrown {

  @IdempotentCommand(
      replayOn = CardDeclined.class)
  String capture(@IdempotencyKey String paymentId);

  class CardDeclined extends Exception {
    private static final long serialVersionUID = 1L;

    public CardDeclined(String message) {
      super(message);
    }
  }
}
