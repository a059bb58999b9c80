package dev.idem.examples.orders;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.util.List;

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

  /**
   * An OrderCreated as delivered: the event and the id of the message that carried it.
   *
   * @param messageId the outbox row's id, carried by the message
   * @param event the decoded event
   */
  record Delivery(String messageId, OrderCreated event) {}

  /**
   * The batch form, for a consumer that takes batches ({@code startBatches}): every message's claim in one statement
   * and one commit for the batch, instead of a transaction per message, which falls behind at 1,000 events/s. It has
   * a scope of its own, so a consumer group uses one form or the other, not both.
   *
   * @param batch the deliveries not processed before, in delivery order
   * @param group the consumer group
   */
  @IdempotentCommand(scope = "billing.order-created-batch", retention = "P7D")
  void onOrdersCreated(@IdempotencyKey("messageId") List<Delivery> batch, @IdempotencyKey String group);
}
