package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface ReturnsObject {

  @IdempotentCommand
  Object exportOrders(@IdempotencyKey String exportId);
}
