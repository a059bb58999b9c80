package com.example.events;

import dev.idem.OutboxEvent;

public interface OutboxDestinationInvalid {

  record OrderCreated(String orderId, long amount) {}

  @OutboxEvent(destination = " orders")
  void orderCreated(OrderCreated event);
}
