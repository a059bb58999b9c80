package com.example.shop;

import dev.idem.IdempotentCommand;

public interface NoKey {

  @IdempotentCommand(scope = "orders.place")
  String placeOrder(String requestId, String sku, int quantity);
}
