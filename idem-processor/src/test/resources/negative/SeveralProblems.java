package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface SeveralProblems {

  @IdempotentCommand(retention = "1d")
  String placeOrder(@IdempotencyKey String requestId, String sku);

  @IdempotentCommand(scope = "orders.ship")
  void ship(String orderId);

  @IdempotentCommand
  <T> T track(@IdempotencyKey String shipmentId, Class<T> view);

  void audit(@IdempotencyKey String orderId);
}
