package dev.idem;

/** What a {@link SingleFlight} call does when another instance holds the lock. */
public enum OnBusy {
  /**
   * Return at once without running the body: a void method returns, an {@code Optional} method returns
   * {@code Optional.empty()}. What a scheduled job wants: the instance holding the lock does this run's work.
   */
  SKIP,
  /**
   * Wait for the lock, polling, up to {@link SingleFlight#waitTimeout()}, then run the body; when the wait times out,
   * return as {@link #SKIP} does. For work that must run on every call, one call at a time.
   */
  WAIT
}
