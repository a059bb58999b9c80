package com.example.shop;

import dev.idem.IdempotentCommand;

public interface WindowIdentityMissing {

  @IdempotentCommand(window = "PT5S", identity = "user")
  void addToCart(String userId, String sku);
}
