package com.example.fidelity;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.util.Collection;

public interface ResultCollection {

  /** A Set returned here would replay as an ArrayList: the declared type does not say which collection it was. */
  @IdempotentCommand(scope = "fidelity.tag")
  Collection<String> tag(@IdempotencyKey String requestId);
}
