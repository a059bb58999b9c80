package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface IdentityWithoutWindow {

  @IdempotentCommand(identity = "userId")
  void addToCart(String userId, @IdempotencyKey String requestId, String sku);
}
