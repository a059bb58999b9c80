package shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.InFlight;
import dev.idem.Mode;
import dev.idem.runtime.IdempotentResult;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/** A representative service: every shape of method idem supports, pinned by the golden file. */
public interface OrderService {

  /** String key; the other parameter is payload. */
  @IdempotentCommand
  Receipt placeOrder(@IdempotencyKey String requestId, PlaceOrder order);

  /** Composite key (UUID + int), explicit scope and retention, primitive return. */
  @IdempotentCommand(scope = "orders.reserve", retention = "PT15M")
  boolean reserveStock(@IdempotencyKey UUID warehouseId, @IdempotencyKey int line, String sku);

  /** Nested accessor path into a record, generic return, checked exception. */
  @IdempotentCommand(retention = "P30D")
  List<Receipt> settle(@IdempotencyKey("header.messageId") OrderPaid message) throws PaymentDeclinedException;

  /** Getter-style accessor (getRefundId()), Optional return. */
  @IdempotentCommand
  Optional<Receipt> refund(@IdempotencyKey("refundId") LegacyRefund refund);

  /** void command with varargs payload. */
  @IdempotentCommand
  void cancel(@IdempotencyKey String orderId, String... reasons);

  /** An overload needs its own scope; no payload at all; an array result. */
  @IdempotentCommand(scope = "orders.cancel-unpaid")
  byte[] cancel(@IdempotencyKey UUID orderId);

  /** Parameters named like the generated fields: the generated code must use this.runtime and this.delegate. */
  @IdempotentCommand
  Map<String, Integer> rebuildIndex(@IdempotencyKey long jobId, Duration runtime, String delegate);

  /** Batch consumer: the nested key path is read from each message; the group is per batch. */
  @IdempotentCommand(scope = "orders.paid-batch", retention = "P7D")
  void onOrdersPaid(@IdempotencyKey("header.messageId") List<OrderPaid> batch, @IdempotencyKey String group);

  /** Batch consumer over a Collection that returns how many it processed; a per-batch payload parameter. */
  @IdempotentCommand
  int settleAll(@IdempotencyKey("orderId") Collection<OrderPaid> message, @IdempotencyKey String group,
                String firstSeen);

  /** CLAIM mode for a payment gateway call; a declined card is a business outcome that every retry gets again. */
  @IdempotentCommand(mode = Mode.CLAIM, lease = "PT2M", onInFlight = InFlight.WAIT, waitTimeout = "PT5S",
      replayOn = PaymentDeclinedException.class)
  Receipt capture(@IdempotencyKey String paymentId, long amountCents) throws PaymentDeclinedException;

  /** CLAIM mode with the defaults (fail fast); two replayed failures, one unchecked and undeclared. */
  @IdempotentCommand(mode = Mode.CLAIM, replayOn = {OutOfStockException.class, PaymentDeclinedException.class})
  void ship(@IdempotencyKey UUID shipmentId) throws PaymentDeclinedException;

  /** The replay signal: idem stores the Receipt and hands every caller a new wrapper saying whether it replayed. */
  @IdempotentCommand(scope = "orders.authorize")
  IdempotentResult<Receipt> authorize(@IdempotencyKey String requestId, long amountCents);

  /** Not annotated: forwarded. */
  Receipt find(String orderId) throws PaymentDeclinedException;

  /** A default method is forwarded too, so that the delegate's override (if any) runs. */
  default Receipt findOrCreate(String orderId, PlaceOrder order) {
    return placeOrder("find-or-create-" + orderId, order);
  }

  /** Static methods are not part of the generated class. */
  static String requestId(String orderId) {
    return "order-" + orderId;
  }
}
