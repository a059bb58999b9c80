package dev.idem.runtime.internal;

/**
 * The real work of a command: generated code passes a lambda that calls the delegate.
 *
 * @param <T> the result type ({@link Void} for commands without a result; return {@code null})
 */
@FunctionalInterface
public interface CommandBody<T> {

  /**
   * Runs the work.
   *
   * @return the result
   * @throws Exception anything; idem rethrows it unchanged after rolling back
   */
  T run() throws Exception;
}
