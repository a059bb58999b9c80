package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface KeyWithoutCommand {

  @IdempotentCommand
  String placeOrder(@IdempotencyKey String requestId, String sku);

  String cancelOrder(@IdempotencyKey String orderId);
}
