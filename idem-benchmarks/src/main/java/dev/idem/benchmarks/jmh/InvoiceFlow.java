package dev.idem.benchmarks.jmh;

import dev.idem.EntityId;
import dev.idem.StateTransition;
import dev.idem.runtime.TransitionResult;

/** The benchmarked transitions; idem generates {@code InvoiceFlow_Idempotent}, one guarded UPDATE each. */
public interface InvoiceFlow {

  @StateTransition(entity = Invoice.class, from = "OPEN", to = "PAID")
  TransitionResult pay(@EntityId long invoiceId);

  @StateTransition(entity = Invoice.class, from = "PAID", to = "OPEN")
  TransitionResult reopen(@EntityId long invoiceId);
}
