package dev.idem.integration.generated;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/** A service exercising every shape of command the processor supports, run end to end on every database. */
public interface ShopCommands {

  enum Channel { WEB, MOBILE }

  record Receipt(String paymentId, long amountCents, List<String> tags) {}

  record Customer(long id, String name) {}

  record Reservation(Order order, int quantity) {}

  record Order(String id, Customer customer) {}

  /** A checked business exception: it must reach the caller unchanged and roll everything back. */
  final class OutOfStockException extends Exception {
    private static final long serialVersionUID = 1L;

    public OutOfStockException(String message) {
      super(message);
    }
  }

  @IdempotentCommand
  Receipt pay(@IdempotencyKey String requestId, long amountCents, List<String> tags);

  @IdempotentCommand(scope = "shop.refunds", retention = "PT1H")
  List<Receipt> refunds(@IdempotencyKey UUID refundId, @IdempotencyKey Channel channel);

  @IdempotentCommand
  Optional<Customer> findCustomer(@IdempotencyKey long customerId);

  @IdempotentCommand
  Map<String, Integer> stock(@IdempotencyKey("customer.name") Order order);

  @IdempotentCommand
  int reserve(@IdempotencyKey("order.id") Reservation reservation) throws OutOfStockException;

  @IdempotentCommand
  void ship(@IdempotencyKey String shipmentId, @IdempotencyKey Channel channel);

  @IdempotentCommand
  String nothing(@IdempotencyKey String key);

  /** Not annotated: forwarded. */
  int executions();
}
