package dev.idem.runtime;

/**
 * The {@link RecordStore} of a {@code store = Store.REDIS} command failed (unreachable, timed out), or the runtime
 * has none. The message says whether the body ran and what a retry meets.
 */
public class IdempotencyRecordStoreException extends IdempotencyException {

  private static final long serialVersionUID = 1L;

  /**
   * @param message what idem was doing, whether the body ran, and what a retry meets
   * @param cause the store's failure, or null
   */
  public IdempotencyRecordStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
