package dev.idem.benchmarks.jmh;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.Mode;

/**
 * The benchmarked command, as a user would declare it; idem generates {@code BenchOrders_Idempotent}. Every
 * method makes the same business write (one order row): {@code placeOrder} returns a receipt that idem stores and
 * replays, {@code recordOrder} is void (the statement counts show what storing a result costs), and
 * {@code placeOrderClaimed} is {@code placeOrder} in CLAIM mode.
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

  /** {@code placeOrder} reading the key's record before the claim ({@code lookupFirst}). */
  @IdempotentCommand(scope = "bench.orders.lookup", lookupFirst = true)
  OrderReceipt placeOrderLookingUp(@IdempotencyKey String requestId, PlaceOrder command);

  @IdempotentCommand(scope = "bench.orders.claim", mode = Mode.CLAIM)
  OrderReceipt placeOrderClaimed(@IdempotencyKey String requestId, PlaceOrder command);
}
