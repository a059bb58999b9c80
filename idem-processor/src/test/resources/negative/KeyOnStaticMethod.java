package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface KeyOnStaticMethod {

  @IdempotentCommand
  String placeOrder(@IdempotencyKey String requestId, String sku);

  static String requestIdFor(@IdempotencyKey String orderId) {
    return "order-" + orderId;
  }
}
