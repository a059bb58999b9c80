package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.KeyTime;

public interface KeyTimeOnNumericKey {

  @IdempotentCommand(scope = "orders.place", keyTime = KeyTime.UUID_V7)
  String placeOrder(@IdempotencyKey long orderNumber, String sku);
}
