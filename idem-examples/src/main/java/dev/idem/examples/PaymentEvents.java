package dev.idem.examples;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/**
 * A message consumer. Brokers deliver at least once: a consumer that commits but loses its ack gets the message
 * again. The key is the message id plus the consumer group, so each group processes a message once, independently
 * of the other groups.
 */
public interface PaymentEvents {

  record OrderPaid(String messageId, long orderId, long amountCents) {}

  @IdempotentCommand(scope = "payments.order-paid", retention = "P7D")
  void onOrderPaid(@IdempotencyKey("messageId") OrderPaid event, @IdempotencyKey String consumerGroup);
}
