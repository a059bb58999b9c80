package com.example.shop;

import dev.idem.IdempotentCommand;

public interface WindowInvalid {

  @IdempotentCommand(window = "5 seconds", identity = "userId")
  void addToCart(String userId, String sku);
}
