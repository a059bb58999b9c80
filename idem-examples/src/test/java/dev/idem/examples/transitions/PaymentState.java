package dev.idem.examples.transitions;

/** Stored by name. */
public enum PaymentState {
  NEW, AUTHORIZED, CAPTURED, CANCELLED, REFUNDED
}
