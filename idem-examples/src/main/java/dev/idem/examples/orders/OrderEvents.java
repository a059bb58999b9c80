package dev.idem.examples.orders;

import dev.idem.OutboxEvent;

/** The orders service's events; idem generates {@code OrderEvents_Outbox}, which writes them into idem_outbox. */
public interface OrderEvents {

  /**
   * Written in the transaction that creates the order; the relay publishes it after the commit.
   *
   * @param event the new order
   */
  @OutboxEvent(destination = "orders", key = "orderId")
  void orderCreated(OrderCreated event);
}
