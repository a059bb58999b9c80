package dev.idem.runtime;

/**
 * Work run by {@link IdemRuntime#inTransaction(TransactionalWork)}; it reaches the transaction's
 * connection through {@link IdemRuntime#currentConnection()}.
 *
 * @param <T> the result type
 */
@FunctionalInterface
public interface TransactionalWork<T> {

  /**
   * Runs the work inside the transaction.
   *
   * @return the result
   * @throws Exception anything; the transaction rolls back and the exception is rethrown unchanged
   */
  T run() throws Exception;
}
