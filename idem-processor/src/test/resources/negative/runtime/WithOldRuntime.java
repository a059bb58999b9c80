package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** Compiled against an idem-runtime of another version (test resources/oldruntime). */
public interface WithOldRuntime {

  @IdempotentCommand
  String pack(@IdempotencyKey String parcelId);
}
