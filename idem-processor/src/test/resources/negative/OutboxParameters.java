package com.example.events;

import dev.idem.OutboxEvent;

public interface OutboxParameters {

  record OrderCreated(String orderId, long amount) {}

  @OutboxEvent(destination = "orders")
  void orderCreated(OrderCreated event, String tenant);
}
