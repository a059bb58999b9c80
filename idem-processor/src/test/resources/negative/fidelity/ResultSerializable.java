package com.example.fidelity;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.io.Serializable;

public interface ResultSerializable {

  @IdempotentCommand(scope = "fidelity.export")
  Serializable export(@IdempotencyKey String requestId);
}
