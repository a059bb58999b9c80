package com.example.fidelity;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface ReplayOnMessageOverriddenInSuperclass {

  /** The override is inherited from a superclass of the listed type. */
  class PaymentException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public PaymentException(String message) {
      super(message);
    }

    @Override
    public String getMessage() {
      return "payment failed: " + super.getMessage();
    }
  }

  class CardDeclinedException extends PaymentException {
    private static final long serialVersionUID = 1L;

    public CardDeclinedException(String message) {
      super(message);
    }
  }

  @IdempotentCommand(scope = "fidelity.charge", replayOn = CardDeclinedException.class)
  String charge(@IdempotencyKey String paymentId, long cents);
}
