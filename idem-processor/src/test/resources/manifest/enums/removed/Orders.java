package com.example.manifest.enums;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** The next version: SHIPPED is gone, so a record stored as SHIPPED would no longer replay. */
public interface Orders {

  enum Status { NEW, PAID, DELIVERED }

  record Order(String id, Status status) {}

  @IdempotentCommand(scope = "orders.place")
  Order place(@IdempotencyKey String orderId);
}
