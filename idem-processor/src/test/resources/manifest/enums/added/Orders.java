package com.example.manifest.enums;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** The next version: a constant added, and the others reordered; records stored before still read back. */
public interface Orders {

  enum Status { NEW, CANCELLED, SHIPPED, PAID }

  record Order(String id, Status status) {}

  @IdempotentCommand(scope = "orders.place")
  Order place(@IdempotencyKey String orderId);
}
