package com.example.events;

import dev.idem.OutboxEvent;

public interface OutboxKeyType {

  record OrderCreated(String orderId, double amount) {}

  @OutboxEvent(destination = "orders", key = "amount")
  void orderCreated(OrderCreated event);
}
