package com.example.events;

import dev.idem.OutboxEvent;

public interface OutboxMixed {

  record OrderCreated(String orderId, long amount) {}

  @OutboxEvent(destination = "orders")
  void orderCreated(OrderCreated event);

  void orderCancelled(String orderId);
}
