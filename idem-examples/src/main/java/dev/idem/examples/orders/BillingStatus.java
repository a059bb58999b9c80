package dev.idem.examples.orders;

/** The billing service's view of an order. */
public enum BillingStatus {
  /** Known from its OrderCreated event, not charged yet. */
  CREATED,
  /** Charged. */
  PAID
}
