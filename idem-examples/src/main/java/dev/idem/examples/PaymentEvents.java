package dev.idem.examples;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.util.List;

/**
 * A message consumer. Brokers deliver at least once: a consumer that commits but loses its ack gets the message
 * again. The key is the message id plus the consumer group, so each group processes a message once, independently
 * of the other groups. Acknowledge a message only after the generated method returned: its transaction has
 * committed by then (see {@link RabbitPaymentConsumer}).
 */
public interface PaymentEvents {

  record OrderPaid(String messageId, long orderId, long amountCents) {}

  /** One message at a time. */
  @IdempotentCommand(scope = "payments.order-paid", retention = "P7D")
  void onOrderPaid(@IdempotencyKey("messageId") OrderPaid event, @IdempotencyKey String consumerGroup);

  /**
   * A batch: all keys are claimed with one statement, and this is called once with the messages not processed
   * before, in delivery order (not at all if every message is a duplicate), in the same transaction as the claims.
   */
  @IdempotentCommand(scope = "payments.order-paid-batch", retention = "P7D")
  void onOrdersPaid(@IdempotencyKey("messageId") List<OrderPaid> batch, @IdempotencyKey String consumerGroup);
}
