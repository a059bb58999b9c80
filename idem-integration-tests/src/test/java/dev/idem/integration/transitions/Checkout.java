package dev.idem.integration.transitions;

import dev.idem.EntityId;
import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.StateTransition;

/** A mixed interface: a command, transitions and a plain method. */
public interface Checkout {

  /** Authorizes the payment through PaymentFlow inside the command's transaction, and records a receipt. */
  @IdempotentCommand(scope = "checkout.pay")
  String pay(@IdempotencyKey String requestId, long paymentId);

  /** String states, in the same interface as a command. */
  @StateTransition(entity = Ticket.class, field = "phase", from = {"open", "in progress"}, to = "it's closed")
  boolean closeTicket(@EntityId Integer ticketId);

  /** Forwarded to the delegate. */
  String describe(long paymentId);
}
