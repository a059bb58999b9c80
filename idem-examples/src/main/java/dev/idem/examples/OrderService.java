package dev.idem.examples;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/**
 * An order service whose clients retry: a gateway timeout, a double click or a compensation job may send the same
 * "create order" again. The request id the client generates once per order makes every retry the same action.
 */
public interface OrderService {

  record CreateOrder(String customerId, String sku, int quantity, long unitPriceCents) {}

  record Order(long orderId, String customerId, String sku, int quantity, long totalCents) {}

  /** Creates the order once per request id; every retry gets the first order back. */
  @IdempotentCommand(scope = "orders.create", retention = "P1D")
  Order createOrder(@IdempotencyKey String requestId, CreateOrder command);

  /** Not idempotent by itself (a read): forwarded unchanged. */
  long countOrders();
}
