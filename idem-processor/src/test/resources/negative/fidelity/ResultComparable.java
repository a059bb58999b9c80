package com.example.fidelity;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface ResultComparable {

  @IdempotentCommand(scope = "fidelity.rank")
  Comparable<String> rank(@IdempotencyKey String requestId);
}
