package dev.idem.runtime;

/**
 * Thrown by a generated {@code @OutboxEvent} publisher called outside any transaction: an outbox event is written
 * in the transaction of the business change it announces, so that it exists if and only if that change committed.
 * Nothing was written.
 */
public class OutboxTransactionRequiredException extends IdempotencyException {

  /**
   * @param message what was called, and how to call it inside a transaction
   */
  public OutboxTransactionRequiredException(String message) {
    super(message);
  }
}
