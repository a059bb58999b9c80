package dev.idem.jdbi;

import dev.idem.OutboxEvent;

/** Events written inside the application's JDBI transaction. */
public interface PaymentEvents {

  record PaymentMade(String requestId, long amount) {}

  @OutboxEvent(destination = "payments", key = "requestId")
  String paymentMade(PaymentMade event);
}
