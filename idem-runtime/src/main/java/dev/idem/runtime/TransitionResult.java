package dev.idem.runtime;

/** What a {@code @StateTransition} method did. */
public enum TransitionResult {
  /** This call moved the entity to the target state. */
  APPLIED,
  /**
   * The entity was already in the target state (or in a state the transition accepts as later): a repeated call,
   * a redelivered message or a duplicate callback. Nothing was changed.
   */
  ALREADY_APPLIED
}
