/** The README's OrderService, for blocks that implement or bind it. */
public interface OrderService {
  record CreateOrder(String customerId, String sku, int quantity, long unitPriceCents) {}
  record Order(long orderId, String customerId, String sku, int quantity, long totalCents) {}

  @IdempotentCommand(scope = "orders.create", retention = "P1D")
  Order createOrder(@IdempotencyKey String requestId, CreateOrder command);
}
