package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** Declares an exception that no source declares and no processor generates. */
public interface NeverGeneratedException {

  @IdempotentCommand
  String pack(@IdempotencyKey String parcelId) throws MissingOutage;
}
