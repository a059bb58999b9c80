package com.example.fidelity;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface ResultHiddenField {

  /** The amount has no getter and no accessor of its own name: the codec would store it as nothing. */
  final class Payment {
    private final String id;
    private final long amountCents;

    public Payment(String id, long amountCents) {
      this.id = id;
      this.amountCents = amountCents;
    }

    public String id() {
      return id;
    }

    public long cents() {
      return amountCents;
    }
  }

  @IdempotentCommand(scope = "fidelity.pay")
  Payment pay(@IdempotencyKey String requestId);
}
