package dev.idem;

/** What a caller does when another caller holds an unexpired claim on the same key ({@link Mode#CLAIM}). */
public enum InFlight {
  /** Throw {@code IdempotencyInProgressException} at once, carrying the time the lease ends. */
  FAIL,
  /** Wait for the first caller's result up to {@link IdempotentCommand#waitTimeout()}, then fail as {@link #FAIL}. */
  WAIT
}
