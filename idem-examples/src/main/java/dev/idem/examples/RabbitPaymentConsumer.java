package dev.idem.examples;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Delivery;
import dev.idem.examples.PaymentEvents.OrderPaid;
import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.runtime.InvalidIdempotencyKeyException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Consumes {@link OrderPaid} messages (JSON) from a RabbitMQ queue with manual acks, one by one or in batches,
 * through the generated {@link PaymentEvents_Idempotent}.
 *
 * <p>The order of things is what makes at-least-once delivery safe: the generated method claims the message ids
 * and runs the business writes in one transaction and returns only after it committed; only then is the message
 * acked. A crash between the commit and the ack makes the broker deliver the message again, and the claim
 * recorded with the first processing turns the redelivery into a no-op that is simply acked. A crash before the
 * commit leaves nothing behind, and the redelivery processes the message for real.
 *
 * <p>One worker thread per consumer processes and acks; the broker's delivery thread only queues deliveries.
 */
public final class RabbitPaymentConsumer implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(RabbitPaymentConsumer.class.getName());
  private static final ObjectMapper JSON = new ObjectMapper();
  /** How long a batch waits for more messages before it is processed as it is. */
  private static final long LINGER_MILLIS = 20;

  /** Decides, after the commit and before the ack, whether to crash instead of acking; for tests. */
  @FunctionalInterface
  public interface CrashBeforeAck {
    CrashBeforeAck NEVER = committed -> false;

    /**
     * @param committed the messages whose processing has just committed
     * @return true to close the channel without acking them, as a crashed consumer would
     */
    boolean crash(List<OrderPaid> committed);
  }

  private final Channel channel;
  private final PaymentEvents events;
  private final String consumerGroup;
  private final int batchSize;
  private final CrashBeforeAck crashBeforeAck;
  private final BlockingQueue<Delivery> deliveries = new LinkedBlockingQueue<>();
  private final Thread worker;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final AtomicLong acked = new AtomicLong();
  private final AtomicLong redelivered = new AtomicLong();
  private volatile boolean running = true;
  private volatile boolean crashed;

  private RabbitPaymentConsumer(Channel channel, PaymentEvents events, String consumerGroup, int batchSize,
                                CrashBeforeAck crashBeforeAck) {
    this.channel = channel;
    this.events = events;
    this.consumerGroup = consumerGroup;
    this.batchSize = batchSize;
    this.crashBeforeAck = crashBeforeAck;
    this.worker = new Thread(this::work, "payments-" + consumerGroup);
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
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize must be positive, got " + batchSize);
    }
    Channel channel = broker.createChannel();
    // Twice the batch in flight: the next batch arrives while this one is processed.
    channel.basicQos(batchSize == 1 ? 1 : 2 * batchSize);
    RabbitPaymentConsumer consumer =
        new RabbitPaymentConsumer(channel, events, consumerGroup, batchSize, crashBeforeAck);
    consumer.worker.start();
    channel.basicConsume(queue, false, (tag, delivery) -> consumer.deliveries.add(delivery), tag -> consumer.stop());
    return consumer;
  }

  private void work() {
    try {
      while (running) {
        Delivery first = deliveries.poll(100, TimeUnit.MILLISECONDS);
        if (first != null) {
          process(collectBatch(first));
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.ERROR, "Consumer of " + consumerGroup + " stopped", e);
    } finally {
      stopped.countDown();
    }
  }

  private List<Delivery> collectBatch(Delivery first) throws InterruptedException {
    List<Delivery> batch = new ArrayList<>(batchSize);
    batch.add(first);
    if (batchSize > 1) {
      deliveries.drainTo(batch, batchSize - 1);
      if (batch.size() < batchSize) {
        Thread.sleep(LINGER_MILLIS);
        deliveries.drainTo(batch, batchSize - batch.size());
      }
    }
    return batch;
  }

  private void process(List<Delivery> batch) throws IOException {
    long lastTag = batch.get(batch.size() - 1).getEnvelope().getDeliveryTag();
    boolean multiple = batch.size() > 1;
    List<OrderPaid> messages = new ArrayList<>(batch.size());
    for (Delivery delivery : batch) {
      if (delivery.getEnvelope().isRedeliver()) {
        redelivered.incrementAndGet();
      }
      messages.add(JSON.readValue(delivery.getBody(), OrderPaid.class));
    }
    try {
      if (batchSize == 1) {
        events.onOrderPaid(messages.get(0), consumerGroup);
      } else {
        events.onOrdersPaid(messages, consumerGroup);
      }
    } catch (IdempotencyKeyReusedException | InvalidIdempotencyKeyException e) {
      // Redelivering cannot help: reject (dead-letter, if the queue has one) and go on.
      LOG.log(Level.ERROR, "Rejecting " + messages.size() + " message(s): " + e.getMessage());
      channel.basicNack(lastTag, multiple, false);
      return;
    } catch (RuntimeException e) {
      // Nothing committed: the broker delivers the messages again.
      LOG.log(Level.WARNING, "Processing failed; requeueing " + messages.size() + " message(s)", e);
      channel.basicNack(lastTag, multiple, true);
      return;
    }
    // The generated method returned: the claims and the business writes have committed. Now, and only now, ack.
    if (crashBeforeAck.crash(messages)) {
      crashed = true;
      running = false;
      closeChannel();
      return;
    }
    channel.basicAck(lastTag, multiple);
    acked.addAndGet(batch.size());
  }

  /** @return whether the consumer simulated a crash */
  public boolean crashed() {
    return crashed;
  }

  /** @return the deliveries acked so far */
  public long acked() {
    return acked.get();
  }

  /** @return the deliveries the broker flagged as redelivered */
  public long redelivered() {
    return redelivered.get();
  }

  /**
   * Waits until the worker stopped (after a simulated crash or {@link #close()}).
   *
   * @return whether it stopped in time
   * @throws InterruptedException if interrupted
   */
  public boolean awaitStop(long timeout, TimeUnit unit) throws InterruptedException {
    return stopped.await(timeout, unit);
  }

  private void stop() {
    running = false;
  }

  /**
   * Stops processing and closes the channel; messages not acked yet go back to the queue. Interrupted while
   * waiting for the worker, it still closes the channel and keeps the thread's interrupt status (an
   * AutoCloseable's close() should not throw InterruptedException: try-with-resources would swallow the status).
   */
  @Override
  public void close() {
    running = false;
    try {
      worker.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      closeChannel();
    }
  }

  private void closeChannel() {
    try {
      if (channel.isOpen()) {
        channel.close();
      }
    } catch (IOException | TimeoutException | RuntimeException e) {
      LOG.log(Level.DEBUG, "Closing the channel failed", e);
    }
  }
}
