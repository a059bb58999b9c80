package com.example.events;

import dev.idem.OutboxEvent;

public interface OutboxKeyPath {

  record OrderCreated(String orderId, long amount) {}

  @OutboxEvent(destination = "orders", key = "customerId")
  void orderCreated(OrderCreated event);
}
