package dev.idem;

/**
 * {@link Mode#CLAIM}: what a body's exception that {@link IdempotentCommand#replayOn()} does not list does to the
 * key.
 */
public enum UndeclaredFailure {
  /**
   * The claim is deleted and a retry runs the body again. Right for bodies whose exceptions mean "nothing
   * happened outside": the external call is the body's last step, or it was refused.
   */
  RELEASE,
  /**
   * The key turns {@code OUTCOME_UNKNOWN}, as if its lease had ended: the external call may have happened before the
   * exception, so retries get {@code IdempotencyOutcomeUnknownException} until the key is resolved or forgotten.
   */
  PARK
}
