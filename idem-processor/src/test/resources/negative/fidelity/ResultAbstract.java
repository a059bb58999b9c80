package com.example.fidelity;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface ResultAbstract {

  abstract class Outcome {
    public abstract String getStatus();
  }

  @IdempotentCommand(scope = "fidelity.settle")
  Outcome settle(@IdempotencyKey String requestId);
}
