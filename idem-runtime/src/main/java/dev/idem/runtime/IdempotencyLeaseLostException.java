package dev.idem.runtime;

/**
 * The lease of a {@code CLAIM} command ended and another caller took the key over (or the record was purged) before
 * this caller completed. This caller's database writes were rolled back and its result was not stored; the new
 * owner's outcome stands. Effects outside the database may have happened twice: choose a lease longer than the
 * work, or extend it with {@link IdemRuntime#extendLease(java.time.Duration)}.
 *
 * <p>When this caller's body had thrown a {@code replayOn} business failure, that failure is this exception's
 * {@linkplain #getCause() cause}: it was not stored, the new owner's outcome was.
 */
public class IdempotencyLeaseLostException extends IdempotencyException {

  private static final long serialVersionUID = 1L;

  private final String scope;
  private final String key;

  /**
   * @param scope the command's scope
   * @param key the composed idempotency key
   */
  public IdempotencyLeaseLostException(String scope, String key) {
    this(scope, key, null);
  }

  /**
   * @param scope the command's scope
   * @param key the composed idempotency key
   * @param discarded the business failure this caller's body threw, not stored; or null
   */
  public IdempotencyLeaseLostException(String scope, String key, Throwable discarded) {
    super("The lease on idempotency key '" + key + "' of " + scope + " was lost to another caller before this one"
        + " completed; its writes were rolled back and the other caller's outcome stands"
        + (discarded == null ? "" : " (its body's failure, not stored, is the cause)"), discarded);
    this.scope = scope;
    this.key = key;
  }

  /** @return the command's scope */
  public String scope() {
    return scope;
  }

  /** @return the composed idempotency key */
  public String key() {
    return key;
  }
}
