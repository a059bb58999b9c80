package dev.idem;

/**
 * {@link Mode#CLAIM}: what a lease that ended before its owner recorded an outcome means for the key.
 */
public enum ExpiredLease {
  /**
   * The next caller takes the key over and runs the body again: at-least-once for the external effect. Right when
   * the external system deduplicates by itself (you pass it the idempotency key) or a repeat is harmless.
   */
  TAKE_OVER,
  /**
   * The key turns {@code OUTCOME_UNKNOWN}: retries get {@code IdempotencyOutcomeUnknownException} and never run the
   * body again until an operator (or your reconciliation) resolves or forgets the key: at-most-once.
   */
  PARK
}
