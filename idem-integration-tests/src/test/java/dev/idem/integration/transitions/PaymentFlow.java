package dev.idem.integration.transitions;

import dev.idem.EntityId;
import dev.idem.ExpectedVersion;
import dev.idem.StateTransition;
import dev.idem.runtime.TransitionResult;

/** Transitions only: the generated class takes just the runtime. */
public interface PaymentFlow {

  @StateTransition(entity = Payment.class, field = "state", from = "NEW", to = "AUTHORIZED", log = true)
  TransitionResult authorize(@EntityId Long paymentId);

  @StateTransition(entity = Payment.class, field = "state", from = "AUTHORIZED", to = "CAPTURED",
      alsoAccept = "REFUNDED")
  TransitionResult capture(@EntityId long paymentId);

  @StateTransition(entity = Payment.class, field = "state", from = {"NEW", "AUTHORIZED"}, to = "CANCELLED")
  TransitionResult cancel(@EntityId long paymentId);

  @StateTransition(entity = Payment.class, field = "state", from = "CAPTURED", to = "REFUNDED")
  boolean refund(@EntityId long paymentId, @ExpectedVersion long version);
}
