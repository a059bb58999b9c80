package com.example.manifest.enums;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** The released version of a service whose result holds an enum. */
public interface Orders {

  enum Status { NEW, PAID, SHIPPED }

  record Order(String id, Status status) {}

  @IdempotentCommand(scope = "orders.place")
  Order place(@IdempotencyKey String orderId);
}
