package com.example.shop;

import com.example.shop.generated.GeneratedOutage;
import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** Declares an exception that another annotation processor generates in the first round. */
public interface Throws {

  @IdempotentCommand
  String pack(@IdempotencyKey String parcelId) throws GeneratedOutage;
}
