package dev.idem.examples;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.Connection;
import dev.idem.examples.PaymentEvents.OrderPaid;
import dev.idem.rabbitmq.IdempotentRabbitConsumer;
import dev.idem.rabbitmq.RabbitMessage;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Consumes {@link OrderPaid} messages (JSON) from a RabbitMQ queue with manual acks, one by one or in batches,
 * through the generated {@link PaymentEvents_Idempotent}, on idem-rabbitmq's {@link IdempotentRabbitConsumer}.
 *
 * <p>The order of things is what makes at-least-once delivery safe: the generated method claims the message ids
 * and runs the business writes in one transaction and returns only after it committed; only then does the consumer
 * ack. A crash between the commit and the ack makes the broker deliver the message again, and the claim recorded
 * with the first processing turns the redelivery into a no-op that is simply acked. A crash before the commit leaves
 * nothing behind, and the redelivery processes the message for real.
 */
public final class RabbitPaymentConsumer implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Decides, after the commit and before the ack, whether to crash instead of acking; for tests. */
  @FunctionalInterface
  public interface CrashBeforeAck {
    CrashBeforeAck NEVER = committed -> false;

    /**
     * @param committed the messages whose processing has just committed
     * @return true to stop without acking them, as a crashed consumer would
     */
    boolean crash(List<OrderPaid> committed);
  }

  /** Thrown from the handler to crash: the consumer stops without acking, as a killed process would. */
  private static final class SimulatedCrash extends Error {
    SimulatedCrash() {
      super("simulated crash after the commit, before the ack");
    }
  }

  private final IdempotentRabbitConsumer consumer;

  private RabbitPaymentConsumer(IdempotentRabbitConsumer consumer) {
    this.consumer = consumer;
  }

  /**
   * Starts consuming on a channel of its own.
   *
   * @param broker the connection to RabbitMQ
   * @param queue the queue to consume
   * @param consumerGroup the group whose processing this consumer does
   * @param events the generated idempotent wrapper
   * @param batchSize 1 for one message per transaction ({@link PaymentEvents#onOrderPaid}), more for batches
   *     ({@link PaymentEvents#onOrdersPaid}) acked together with one multiple ack
   * @param crashBeforeAck crash simulation; {@link CrashBeforeAck#NEVER} in production
   * @return the running consumer
   * @throws IOException if the channel cannot be opened or the consumer registered
   */
  public static RabbitPaymentConsumer start(Connection broker, String queue, String consumerGroup,
                                            PaymentEvents events, int batchSize, CrashBeforeAck crashBeforeAck)
      throws IOException {
    IdempotentRabbitConsumer.Builder builder = IdempotentRabbitConsumer.builder(broker, queue, consumerGroup)
        .retryBackoff(Duration.ofMillis(100));
    if (batchSize == 1) {
      return new RabbitPaymentConsumer(builder.start(message -> {
        OrderPaid paid = decode(message);
        events.onOrderPaid(paid, consumerGroup);
        crashIf(crashBeforeAck, List.of(paid));
      }));
    }
    return new RabbitPaymentConsumer(builder.startBatches(batchSize, messages -> {
      List<OrderPaid> batch = new ArrayList<>(messages.size());
      for (RabbitMessage message : messages) {
        batch.add(decode(message));
      }
      events.onOrdersPaid(batch, consumerGroup);
      crashIf(crashBeforeAck, batch);
    }));
  }

  private static OrderPaid decode(RabbitMessage message) throws IOException {
    return JSON.readValue(message.body(), OrderPaid.class);
  }

  private static void crashIf(CrashBeforeAck crashBeforeAck, List<OrderPaid> committed) {
    // The generated method returned: the claims and the business writes have committed. The ack comes next.
    if (crashBeforeAck.crash(committed)) {
      throw new SimulatedCrash();
    }
  }

  /** @return whether the consumer simulated a crash */
  public boolean crashed() {
    return consumer.failure() instanceof SimulatedCrash;
  }

  /** @return the deliveries acked so far */
  public long acked() {
    return consumer.acked();
  }

  /** @return the deliveries the broker flagged as redelivered */
  public long redelivered() {
    return consumer.redelivered();
  }

  /**
   * Waits until the consumer stopped (after a simulated crash or {@link #close()}).
   *
   * @return whether it stopped in time
   * @throws InterruptedException if interrupted
   */
  public boolean awaitStop(long timeout, TimeUnit unit) throws InterruptedException {
    return consumer.awaitStop(Duration.ofNanos(unit.toNanos(timeout)));
  }

  /** Stops processing and closes the channel; messages not acked yet go back to the queue. */
  @Override
  public void close() {
    consumer.close();
  }
}
