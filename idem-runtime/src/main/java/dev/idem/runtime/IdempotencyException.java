package dev.idem.runtime;

/** Base class of everything idem throws itself. Unchecked. */
public class IdempotencyException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /**
   * @param message what went wrong
   */
  public IdempotencyException(String message) {
    super(message);
  }

  /**
   * @param message what went wrong
   * @param cause the underlying failure
   */
  public IdempotencyException(String message, Throwable cause) {
    super(message, cause);
  }
}
