package com.example.fidelity;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface ReplayOnMessageOverridden {

  /** getMessage() decorates the message the constructor took: captured through it, a retry's would be doubled. */
  class CardDeclinedException extends Exception {
    private static final long serialVersionUID = 1L;
    private final String declineCode;

    public CardDeclinedException(String message, String declineCode) {
      super(message);
      this.declineCode = declineCode;
    }

    public String declineCode() {
      return declineCode;
    }

    @Override
    public String getMessage() {
      return "[" + declineCode + "] " + super.getMessage();
    }
  }

  @IdempotentCommand(scope = "fidelity.charge", replayOn = CardDeclinedException.class)
  String charge(@IdempotencyKey String paymentId, long cents) throws CardDeclinedException;
}
