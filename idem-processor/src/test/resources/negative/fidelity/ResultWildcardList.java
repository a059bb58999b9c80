package com.example.fidelity;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.util.List;

public interface ResultWildcardList {

  record Batch(String id, List<?> items) {}

  @IdempotentCommand(scope = "fidelity.batch")
  Batch batch(@IdempotencyKey String requestId);
}
