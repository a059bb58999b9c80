package dev.idem.examples.orders;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/**
 * The billing service's consumer command, keyed by (message id, consumer group): a redelivered OrderCreated is a
 * no-op, so the broker may deliver it as often as it likes.
 */
public interface Billing {

  /**
   * Records the order, charges it and marks it PAID, in one transaction with the claim on the message id.
   *
   * @param messageId the outbox row's id, carried by the message
   * @param group the consumer group
   * @param event the decoded event
   */
  @IdempotentCommand(scope = "billing.order-created", retention = "P7D")
  void onOrderCreated(@IdempotencyKey String messageId, @IdempotencyKey String group, OrderCreated event);
}
