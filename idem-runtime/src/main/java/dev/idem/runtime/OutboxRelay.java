package dev.idem.runtime;

/**
 * A running outbox relay ({@link IdemRuntime#startOutboxRelay}): one daemon thread that claims due events from
 * {@code idem_outbox} in short transactions, publishes them through an {@link OutboxPublisher} without holding row
 * locks, and marks each one sent, to retry after a backoff, or parked, fenced by its claim. Many relays, in one
 * process or many, share the table safely: each claims with {@code FOR UPDATE SKIP LOCKED}.
 */
public interface OutboxRelay extends AutoCloseable {

  /**
   * Stops the relay: interrupts its thread, waits for it, and gives the claim of a batch it had not marked back (due
   * at once for any relay). Never closes the publisher, which the application owns. Idempotent.
   */
  @Override
  void close();

  /** @return whether the relay's thread still runs */
  boolean isRunning();
}
