package com.example.shop;

import dev.idem.IdempotentCommand;
import dev.idem.KeyTime;

public interface WindowWithKeyTime {

  @IdempotentCommand(window = "PT5S", identity = "userId", keyTime = KeyTime.ULID)
  void addToCart(String userId, String sku);
}
