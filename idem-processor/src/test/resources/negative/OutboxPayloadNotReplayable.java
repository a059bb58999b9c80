package com.example.events;

import dev.idem.OutboxEvent;

public interface OutboxPayloadNotReplayable {

  interface Details {}

  record OrderShipped(String orderId, Details details) {}

  @OutboxEvent(destination = "orders")
  void orderShipped(OrderShipped shipped);
}
