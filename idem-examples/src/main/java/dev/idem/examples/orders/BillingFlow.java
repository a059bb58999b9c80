package dev.idem.examples.orders;

import dev.idem.EntityId;
import dev.idem.StateTransition;
import dev.idem.runtime.TransitionResult;

/** The billing copy's state machine; idem generates {@code BillingFlow_Idempotent}, one guarded UPDATE. */
public interface BillingFlow {

  /**
   * The charge went through.
   *
   * @param orderId the order
   * @return whether this call moved it (APPLIED) or found it PAID already
   */
  @StateTransition(entity = BillingOrder.class, from = "CREATED", to = "PAID")
  TransitionResult markPaid(@EntityId long orderId);
}
