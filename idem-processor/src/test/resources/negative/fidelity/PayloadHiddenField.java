package com.example.fidelity;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface PayloadHiddenField {

  /** Only toString shows the amount: a changed amount under the same key would look like a retry. */
  final class Charge {
    private final long amountCents;

    public Charge(long amountCents) {
      this.amountCents = amountCents;
    }

    @Override
    public String toString() {
      return "Charge " + amountCents;
    }
  }

  @IdempotentCommand(scope = "fidelity.charge")
  String charge(@IdempotencyKey String requestId, Charge charge);
}
