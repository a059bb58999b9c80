package dev.idem.examples.orders;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.runtime.IdempotentResult;

/**
 * The orders service's command: creates an order once per client and Idempotency-Key. It is a TRANSACTIONAL
 * command (the default): the claim, the order's row and the {@link OrderCreated} outbox row commit together, so a
 * retry racing the first call waits for it and gets its order back, and an event exists if and only if the order does.
 */
public interface Orders {

  /**
   * What a client asks for.
   *
   * @param amountCents the amount, in cents
   */
  record NewOrder(long amountCents) {}

  /**
   * A created order, as stored and rendered.
   *
   * @param id the order's id
   * @param amountCents the amount, in cents
   * @param status CREATED when created
   */
  record Order(long id, long amountCents, String status) {}

  /**
   * @param clientId the authenticated client
   * @param idempotencyKey the request's Idempotency-Key
   * @param order what to create
   * @return the order, marked as a replay for a retry
   */
  @IdempotentCommand(scope = "shop.orders.create", retention = "P1D")
  IdempotentResult<Order> create(@IdempotencyKey String clientId, @IdempotencyKey String idempotencyKey,
                                 NewOrder order);
}
