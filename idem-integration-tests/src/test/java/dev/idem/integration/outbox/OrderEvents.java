package dev.idem.integration.outbox;

import dev.idem.OutboxEvent;
import java.util.Map;

/** The events of the order service: idem generates {@code OrderEvents_Outbox}. */
public interface OrderEvents {

  record OrderCreated(String orderId, long amountCents) {}

  @OutboxEvent(destination = "orders", key = "orderId")
  String orderCreated(OrderCreated event);

  @OutboxEvent(destination = "orders", key = "orderId", type = "OrderCancelled")
  void orderCancelled(OrderCreated event, Map<String, String> headers);
}
