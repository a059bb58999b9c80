package com.example.outbox;

import dev.idem.OutboxEvent;
import java.util.Map;
import java.util.UUID;

public interface OrderEvents {

  record Customer(UUID id, String name) {}

  record OrderCreated(String orderId, Customer customer, long amountCents) {}

  record OrderPaid(long orderNumber, String currency) {}

  @OutboxEvent(destination = "orders", key = "orderId")
  void orderCreated(OrderCreated event);

  @OutboxEvent(destination = "orders", key = "customer.id", type = "order.created.v2")
  String orderCreatedWithHeaders(OrderCreated event, Map<String, String> headers);

  @OutboxEvent(destination = "payments", key = "orderNumber")
  void orderPaid(OrderPaid paid);

  @OutboxEvent(destination = "audit")
  void audited(OrderPaid paid);

  default void orderCreatedTwice(OrderCreated event) {
    orderCreated(event);
    orderCreated(event);
  }
}
