package dev.idem.runtime;

import java.sql.Connection;

/**
 * Work without a result run by {@link IdemRuntime#runInTransaction(TransactionalRunnable)}.
 */
@FunctionalInterface
public interface TransactionalRunnable {

  /**
   * Runs the work inside the transaction.
   *
   * @param connection the transaction's connection; do not commit, roll back or close it
   *
   * @throws Exception anything; the transaction rolls back and the exception is rethrown unchanged, except a raw
   *     {@link java.sql.SQLException}, which comes out as an {@link IdempotencyStoreException} with it as the cause (and
   *     which, if transient, reruns the work in a new transaction of idem's own: see
   *     {@link IdemRuntime#inTransaction(TransactionalWork)})
   */
  void run(Connection connection) throws Exception;
}
