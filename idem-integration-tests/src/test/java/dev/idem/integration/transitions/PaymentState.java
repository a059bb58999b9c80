package dev.idem.integration.transitions;

/** Stored by name. */
public enum PaymentState {
  NEW, AUTHORIZED, CAPTURED, CANCELLED, REFUNDED
}
