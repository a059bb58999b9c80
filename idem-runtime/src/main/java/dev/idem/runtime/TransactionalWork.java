package dev.idem.runtime;

import java.sql.Connection;

/**
 * Work run by {@link IdemRuntime#inTransaction(TransactionalWork)}; it gets the transaction's
 * connection through {@link IdemRuntime#currentConnection()}.
 *
 * @param <T> the result type
 */
@FunctionalInterface
public interface TransactionalWork<T> {

  /**
   * Runs the work inside the transaction.
   *
   * @param connection the transaction's connection; do not commit, roll back or close it
   * @return the result
   * @throws Exception anything; the transaction rolls back and the exception is rethrown unchanged, except a raw
   *     {@link java.sql.SQLException}, which comes out as an {@link IdempotencyStoreException} with it as the cause (and
   *     which, if transient, reruns the work in a new transaction of idem's own: see
   *     {@link IdemRuntime#inTransaction(TransactionalWork)})
   */
  T run(Connection connection) throws Exception;
}
