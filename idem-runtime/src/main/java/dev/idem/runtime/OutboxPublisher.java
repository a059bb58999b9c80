package dev.idem.runtime;

import java.util.List;

/**
 * The boundary between the outbox relay (in the runtime: claims rows, publishes them, marks them sent, parks and
 * backs off) and one broker. An adapter only publishes and waits for the broker's confirmation; it holds no SQL and
 * decides nothing about rows. Modules {@code idem-rabbitmq}, {@code idem-kafka} and {@code idem-nats} implement it.
 *
 * <p>Delivery is at least once: a message whose confirmation was lost, or whose relay died before marking it sent,
 * is published again with the same {@link OutboxMessage#messageId()}. Adapters put that id where the broker and the
 * consumers deduplicate by it.
 *
 * <p>An adapter is used by one relay thread at a time, but must be safe to {@link #close()} from another.
 */
public interface OutboxPublisher extends AutoCloseable {

  /**
   * Publishes the messages, in the order given where they share a partition key, and waits for the broker's
   * confirmation of each (bounded by the adapter's own timeout).
   *
   * @param messages the batch, never empty
   * @return one outcome per message, in the same order; a failure of one message is its outcome, never an exception
   * @throws InterruptedException if the relay is stopping; the relay then retries the whole batch later
   */
  List<PublishOutcome> publish(List<OutboxMessage> messages) throws InterruptedException;

  /** Releases the adapter's broker resources (never the connection the application passed in). */
  @Override
  default void close() {}
}
