package com.example.shop;

import com.example.shop.generated.GeneratedQueries;
import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** Extends an interface that another annotation processor generates in the first round. */
public interface Inherits extends GeneratedQueries {

  @IdempotentCommand
  String pack(@IdempotencyKey String parcelId);
}
