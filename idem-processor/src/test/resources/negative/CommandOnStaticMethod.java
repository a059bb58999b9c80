package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface CommandOnStaticMethod {

  @IdempotentCommand
  String placeOrder(@IdempotencyKey String requestId, String sku);

  @IdempotentCommand(scope = "orders.normalize")
  static String normalize(@IdempotencyKey String requestId) {
    return requestId.trim();
  }
}
