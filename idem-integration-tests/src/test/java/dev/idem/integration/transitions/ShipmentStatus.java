package dev.idem.integration.transitions;

/** Stored by ordinal: the JPA default when @Enumerated is absent. */
public enum ShipmentStatus {
  PENDING, DISPATCHED, DELIVERED, LOST
}
