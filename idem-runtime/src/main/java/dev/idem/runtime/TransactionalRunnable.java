package dev.idem.runtime;

/**
 * Work without a result run by {@link IdemRuntime#inTransaction(TransactionalRunnable)}.
 */
@FunctionalInterface
public interface TransactionalRunnable {

  /**
   * Runs the work inside the transaction.
   *
   * @throws Exception anything; the transaction rolls back and the exception is rethrown unchanged
   */
  void run() throws Exception;
}
