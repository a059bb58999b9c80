package com.example.events;

import dev.idem.OutboxEvent;

public interface OutboxTypeInvalid {

  record OrderCreated(String orderId, long amount) {}

  @OutboxEvent(destination = "orders", type = "")
  void orderCreated(OrderCreated event);
}
