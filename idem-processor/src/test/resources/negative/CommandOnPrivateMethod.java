package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface CommandOnPrivateMethod {

  @IdempotentCommand
  String placeOrder(@IdempotencyKey String requestId, String sku);

  default String placeOrder(String sku) {
    return placeOrder(java.util.UUID.randomUUID().toString(), sku);
  }

  @IdempotentCommand(scope = "orders.normalize")
  private String normalize(@IdempotencyKey String requestId) {
    return requestId.trim();
  }
}
