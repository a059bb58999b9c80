package dev.idem.benchmarks.jmh;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/**
 * The benchmarked command, as a user would declare it; idem generates {@code BenchOrders_Idempotent}. Both
 * methods make the same business write (one order row): one returns a receipt that idem stores and replays, the
 * other is void, so that the statement counts show what storing a result costs.
 */
public interface BenchOrders {

  record PlaceOrder(long orderId, String customerId, String sku, int quantity, long unitPriceCents) {

    long totalCents() {
      return quantity * unitPriceCents;
    }
  }

  record OrderReceipt(long orderId, long totalCents) {}

  @IdempotentCommand(scope = "bench.orders.place")
  OrderReceipt placeOrder(@IdempotencyKey String requestId, PlaceOrder command);

  @IdempotentCommand(scope = "bench.orders.record")
  void recordOrder(@IdempotencyKey String requestId, PlaceOrder command);
}
