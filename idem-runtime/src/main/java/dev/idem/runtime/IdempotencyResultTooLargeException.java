package dev.idem.runtime;

/**
 * A result (or a stored business failure's arguments) is larger, as JSON, than the runtime's
 * {@link IdemRuntime.Builder#maxResultSize(int) maximum result size}. Checked before anything commits: a
 * {@code TRANSACTIONAL} command's transaction was rolled back, so nothing is recorded and a retry runs the command
 * again (and fails the same way until the result shrinks or the limit is raised). A {@code CLAIM} command's body has
 * run by then: this exception is the cause of an {@link IdempotencyOutcomeUnknownException}, and retries never run
 * the body again.
 */
public class IdempotencyResultTooLargeException extends IdempotencyException {

  private static final long serialVersionUID = 1L;

  private final String scope;
  private final String key;
  private final long size;
  private final int limit;

  /**
   * A {@code TRANSACTIONAL} command's result: nothing was recorded and a retry runs the command again.
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   * @param size the result's size as JSON, in characters
   * @param limit the configured maximum
   */
  public IdempotencyResultTooLargeException(String scope, String key, long size, int limit) {
    this(scope, key, size, limit, false);
  }

  /**
   * @param scope the command's scope
   * @param key the composed idempotency key
   * @param size the result's size as JSON, in characters
   * @param limit the configured maximum
   * @param bodyRan whether the body's effects may have happened outside the database and it never runs again for
   *     the key ({@code CLAIM}): then this exception is the cause of an {@link IdempotencyOutcomeUnknownException},
   *     which says what retries get, and its message says only what was too large, so that the two never contradict
   *     each other
   */
  public IdempotencyResultTooLargeException(String scope, String key, long size, int limit, boolean bodyRan) {
    super("The result of " + scope + " key '" + key + "' is " + size + " characters as JSON, more than the maximum"
        + " result size of " + limit + " (IdemRuntime.Builder.maxResultSize), so it cannot be recorded and"
        + " replayed" + (bodyRan
            ? ""
            : ". Nothing was recorded and the command's transaction was rolled back: a retry runs the command"
                + " again and fails the same way until the result is smaller or the limit is raised"));
    this.scope = scope;
    this.key = key;
    this.size = size;
    this.limit = limit;
  }

  /** @return the command's scope */
  public String scope() {
    return scope;
  }

  /** @return the composed idempotency key */
  public String key() {
    return key;
  }

  /** @return the result's size as JSON, in characters */
  public long size() {
    return size;
  }

  /** @return the configured maximum */
  public int limit() {
    return limit;
  }
}
