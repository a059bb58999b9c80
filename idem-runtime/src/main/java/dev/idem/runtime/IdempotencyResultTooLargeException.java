package dev.idem.runtime;

/**
 * A result (or a stored business failure's arguments) is larger, as JSON, than the runtime's
 * {@link IdemRuntime.Builder#maxResultSize(int) maximum result size}. Checked before anything commits: the command's
 * transaction was rolled back (a {@code CLAIM} command's claim is released), so nothing is recorded.
 */
public class IdempotencyResultTooLargeException extends IdempotencyException {

  private static final long serialVersionUID = 1L;

  private final long size;
  private final int limit;

  /**
   * @param scope the command's scope
   * @param size the result's size as JSON, in characters
   * @param limit the configured maximum
   */
  public IdempotencyResultTooLargeException(String scope, long size, int limit) {
    super("The result of " + scope + " is " + size + " characters as JSON, more than the maximum result size of "
        + limit + " (IdemRuntime.Builder.maxResultSize); nothing was recorded and the transaction was rolled back");
    this.size = size;
    this.limit = limit;
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
