package dev.idem.examples;

import dev.idem.EntityId;
import dev.idem.StateTransition;
import dev.idem.runtime.TransitionResult;

/**
 * The order's state machine, CREATED → PROCESSING → PAID → SHIPPED → FINISHED, as callbacks drive it. idem
 * generates {@code OrderFlow_Idempotent}: each method is one guarded {@code UPDATE}, so a repeated callback is a
 * success without effect and a stale one can never move an order backwards. There is nothing to implement.
 */
public interface OrderFlow {

  /** The payment provider started processing. */
  @StateTransition(entity = PurchaseOrder.class, from = "CREATED", to = "PROCESSING")
  TransitionResult startProcessing(@EntityId long orderId);

  /** The payment provider's "paid" callback; it may arrive twice, or after the order has shipped. */
  @StateTransition(entity = PurchaseOrder.class, from = {"CREATED", "PROCESSING"}, to = "PAID",
      alsoAccept = {"SHIPPED", "FINISHED"}, log = true)
  TransitionResult markPaid(@EntityId long orderId);

  /** The warehouse shipped the order; true if this call shipped it. */
  @StateTransition(entity = PurchaseOrder.class, from = "PAID", to = "SHIPPED", alsoAccept = "FINISHED",
      log = true)
  boolean ship(@EntityId long orderId);

  /** The carrier delivered it. */
  @StateTransition(entity = PurchaseOrder.class, from = "SHIPPED", to = "FINISHED", log = true)
  void finish(@EntityId long orderId);
}
