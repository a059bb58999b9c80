package com.example.shop;

import dev.idem.IdempotentCommand;

public interface WindowWithRetention {

  @IdempotentCommand(window = "PT5S", identity = "userId", retention = "P1D")
  void addToCart(String userId, String sku);
}
