package dev.idem.runtime.internal;

/**
 * Carries a command body's exception past an executor's SQLException handling, to be rethrown unchanged once the
 * transaction or savepoint is rolled back. Stackless: it never reaches the caller.
 */
final class BodyFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  BodyFailure(Throwable cause) {
    super(null, cause, false, false);
  }
}
