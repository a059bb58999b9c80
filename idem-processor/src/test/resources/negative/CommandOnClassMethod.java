package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** The annotation belongs on the interface, not on the implementation. */
public class CommandOnClassMethod {

  @IdempotentCommand
  public String placeOrder(@IdempotencyKey String requestId, String sku) {
    return requestId + sku;
  }
}
