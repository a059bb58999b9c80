package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** Compiled against idem-annotations alone: idem-runtime is not on the class path. */
public interface WithoutRuntime {

  @IdempotentCommand
  String pack(@IdempotencyKey String parcelId);
}
