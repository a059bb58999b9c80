package com.example.events;

import dev.idem.OutboxEvent;

public interface OutboxReturnType {

  record OrderCreated(String orderId, long amount) {}

  @OutboxEvent(destination = "orders")
  long orderCreated(OrderCreated event);
}
