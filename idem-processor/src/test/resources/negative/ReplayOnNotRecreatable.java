package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface ReplayOnNotRecreatable {

  @IdempotentCommand(
      replayOn = {IllegalStateException.class, ReplayOnNotRecreatable.CardDeclined.class})
  String capture(@IdempotencyKey String paymentId);

  /** The constructor's parameter has no accessor: idem could store nothing that recreates it. */
  class CardDeclined extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CardDeclined(String reason) {
      super("declined: " + reason);
    }
  }
}
