package com.example.shop;

import com.example.shop.generated.GeneratedReceipt;
import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** Refers to a type that another annotation processor generates in the first round. */
public interface Checkout {

  @IdempotentCommand
  GeneratedReceipt checkout(@IdempotencyKey String cartId);
}
