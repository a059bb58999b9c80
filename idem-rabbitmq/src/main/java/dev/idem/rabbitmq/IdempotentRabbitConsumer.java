package dev.idem.rabbitmq;

import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Delivery;
import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.runtime.InvalidIdempotencyKeyException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Consumes a RabbitMQ queue with manual acks and acks a delivery only after the handler returned.
 *
 * <p>The handler deduplicates and applies the message in one transaction: it calls a generated
 * {@code @IdempotentCommand} method keyed by ({@link RabbitMessage#messageId()}, {@link RabbitMessage#group()}),
 * which returns only after its transaction committed. A crash between that commit and the ack makes the broker
 * deliver the message again, and the recorded claim turns the redelivery into a no-op that is acked. A crash before
 * the commit leaves nothing, and the redelivery runs for real.
 *
 * <p>What happens after the handler:
 *
 * <ul>
 *   <li>it returned: the delivery (the batch, with one multiple ack) is acked;
 *   <li>it threw {@link IdempotencyKeyReusedException} or {@link InvalidIdempotencyKeyException}, or a delivery has no
 *       message id: redelivering cannot help, so it is rejected without requeue (to the queue's dead-letter
 *       exchange, if it has one);
 *   <li>it threw another exception: nothing committed; after the retry backoff the delivery is requeued;
 *   <li>it threw an {@link Error}: the consumer stops as a crashed one would, closing its channel without acking, so
 *       that the broker delivers the unacked messages again; {@link #failure()} tells why.
 * </ul>
 *
 * <p>One worker thread of its own processes and acks; the client's delivery thread only queues deliveries. Start
 * it with {@link Builder#start(Handler)} or {@link Builder#startBatches(int, BatchHandler)}, stop it with
 * {@link #close()}.
 */
public final class IdempotentRabbitConsumer implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(IdempotentRabbitConsumer.class.getName());
  /** How long a batch waits for more deliveries before it is processed as it is. */
  private static final long LINGER_MILLIS = 20;

  /** Applies one message; see the class description for what its outcome means. */
  @FunctionalInterface
  public interface Handler {
    /**
     * @param message the delivery
     * @throws Exception to have it requeued (or rejected, see the class description)
     */
    void handle(RabbitMessage message) throws Exception;
  }

  /** Applies a batch of messages in one transaction; see the class description for what its outcome means. */
  @FunctionalInterface
  public interface BatchHandler {
    /**
     * @param messages the deliveries, in delivery order
     * @throws Exception to have them all requeued (or rejected, see the class description)
     */
    void handle(List<RabbitMessage> messages) throws Exception;
  }

  private final Channel channel;
  private final String queue;
  private final String group;
  private final int batchSize;
  private final Duration retryBackoff;
  private final BatchHandler handler;
  private final BlockingQueue<Delivery> deliveries = new LinkedBlockingQueue<>();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final AtomicLong acked = new AtomicLong();
  private final AtomicLong requeued = new AtomicLong();
  private final AtomicLong rejected = new AtomicLong();
  private final AtomicLong redelivered = new AtomicLong();
  private final Thread worker;
  private volatile boolean running = true;
  private volatile Throwable failure;

  private IdempotentRabbitConsumer(Builder builder, Channel channel, BatchHandler handler) {
    this.channel = channel;
    this.queue = builder.queue;
    this.group = builder.group;
    this.batchSize = builder.batchSize;
    this.retryBackoff = builder.retryBackoff;
    this.handler = handler;
    this.worker = new Thread(this::work, "idem-rabbit-" + group + "-" + queue);
  }

  /**
   * @param connection the application's connection; the consumer opens a channel of its own on it
   * @param queue the queue to consume
   * @param group the consumer group: the part of the dedup key that lets other groups process the same message
   * @return a builder
   */
  public static Builder builder(Connection connection, String queue, String group) {
    return new Builder(connection, queue, group);
  }

  private void work() {
    try {
      while (running) {
        Delivery first = deliveries.poll(100, TimeUnit.MILLISECONDS);
        if (first != null) {
          process(collect(first));
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException | RuntimeException e) {
      failure = e;
      LOG.log(Level.ERROR, "The consumer of " + queue + " for " + group + " stopped", e);
    } catch (Error e) {
      failure = e;
      LOG.log(Level.ERROR, "The consumer of " + queue + " for " + group + " crashed; unacked deliveries return", e);
    } finally {
      running = false;
      abortChannel();
      stopped.countDown();
    }
  }

  private List<Delivery> collect(Delivery first) throws InterruptedException {
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

  private void process(List<Delivery> batch) throws IOException, InterruptedException {
    List<RabbitMessage> messages = new ArrayList<>(batch.size());
    for (Delivery delivery : batch) {
      if (delivery.getEnvelope().isRedeliver()) {
        redelivered.incrementAndGet();
      }
      String id = RabbitMessage.messageIdOf(delivery);
      if (id == null) {
        LOG.log(Level.ERROR, "Rejecting a delivery of " + queue + " without a message id (no message-id property, "
            + "no idem-message-id header): nothing to deduplicate it by");
        channel.basicNack(delivery.getEnvelope().getDeliveryTag(), false, false);
        rejected.incrementAndGet();
      } else {
        messages.add(new RabbitMessage(id, group, delivery));
      }
    }
    if (messages.isEmpty()) {
      return;
    }
    long lastTag = messages.get(messages.size() - 1).delivery().getEnvelope().getDeliveryTag();
    boolean multiple = messages.size() > 1;
    try {
      handler.handle(messages);
    } catch (IdempotencyKeyReusedException | InvalidIdempotencyKeyException e) {
      LOG.log(Level.ERROR, "Rejecting " + messages.size() + " message(s) of " + queue + ": " + e.getMessage());
      nack(messages, false);
      rejected.addAndGet(messages.size());
      return;
    } catch (InterruptedException e) {
      nack(messages, true);
      throw e;
    } catch (Exception e) {
      LOG.log(Level.WARNING, "Handling failed; requeueing " + messages.size() + " message(s) of " + queue, e);
      Thread.sleep(retryBackoff.toMillis());
      nack(messages, true);
      requeued.addAndGet(messages.size());
      return;
    }
    // The handler returned: its transaction (claims and effects) committed. Now, and only now, ack.
    channel.basicAck(lastTag, multiple);
    acked.addAndGet(messages.size());
  }

  private void nack(List<RabbitMessage> messages, boolean requeue) throws IOException {
    // One by one: a delivery rejected earlier in the batch (no id) must not be nacked twice by a multiple nack.
    for (RabbitMessage message : messages) {
      channel.basicNack(message.delivery().getEnvelope().getDeliveryTag(), false, requeue);
    }
  }

  /** @return how many deliveries were acked */
  public long acked() {
    return acked.get();
  }

  /** @return how many deliveries were requeued after a failed handler */
  public long requeued() {
    return requeued.get();
  }

  /** @return how many deliveries were rejected (no message id, key reused, invalid key) */
  public long rejected() {
    return rejected.get();
  }

  /** @return how many deliveries the broker flagged as redelivered */
  public long redelivered() {
    return redelivered.get();
  }

  /** @return whether the consumer is still consuming */
  public boolean isRunning() {
    return running;
  }

  /** @return what stopped the consumer (an {@link Error} thrown by the handler, a lost channel), or null */
  public Throwable failure() {
    return failure;
  }

  /**
   * Waits until the worker stopped (after {@link #close()}, a crash or a lost channel).
   *
   * @param timeout how long to wait
   * @return whether it stopped in time
   * @throws InterruptedException if interrupted
   */
  public boolean awaitStop(Duration timeout) throws InterruptedException {
    return stopped.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Stops consuming: the batch in hand is finished (acked or requeued), then the channel closes and the deliveries
   * not acked go back to the queue. Interrupted while waiting, it still closes the channel and keeps the interrupt
   * status.
   */
  @Override
  public void close() {
    running = false;
    try {
      if (Thread.currentThread() != worker) {
        worker.join(TimeUnit.SECONDS.toMillis(30));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      abortChannel();
    }
  }

  private void abortChannel() {
    try {
      if (channel.isOpen()) {
        channel.close();
      }
    } catch (IOException | TimeoutException | AlreadyClosedException e) {
      LOG.log(Level.DEBUG, "Closing the channel failed", e);
    }
  }

  /** Settings of an {@link IdempotentRabbitConsumer}. */
  public static final class Builder {
    private final Connection connection;
    private final String queue;
    private final String group;
    private int batchSize = 1;
    private int prefetch;
    private Duration retryBackoff = Duration.ofSeconds(1);

    private Builder(Connection connection, String queue, String group) {
      this.connection = Objects.requireNonNull(connection, "connection");
      this.queue = Objects.requireNonNull(queue, "queue");
      this.group = Objects.requireNonNull(group, "group");
    }

    /**
     * @param prefetch the channel's prefetch (unacked deliveries in flight); by default 1 for single messages and
     *     twice the batch size for batches
     * @return this builder
     */
    public Builder prefetch(int prefetch) {
      if (prefetch < 1) {
        throw new IllegalArgumentException("prefetch must be positive, got " + prefetch);
      }
      this.prefetch = prefetch;
      return this;
    }

    /**
     * @param retryBackoff how long to wait before requeueing after a failed handler (1 s by default), so that a
     *     failing message does not spin
     * @return this builder
     */
    public Builder retryBackoff(Duration retryBackoff) {
      if (retryBackoff.isNegative()) {
        throw new IllegalArgumentException("retryBackoff must not be negative, got " + retryBackoff);
      }
      this.retryBackoff = retryBackoff;
      return this;
    }

    /**
     * Starts consuming one message per handler call.
     *
     * @param handler applies one message
     * @return the running consumer
     * @throws IOException if the channel cannot be opened or the consumer registered
     */
    public IdempotentRabbitConsumer start(Handler handler) throws IOException {
      Objects.requireNonNull(handler, "handler");
      this.batchSize = 1;
      return launch(messages -> handler.handle(messages.get(0)));
    }

    /**
     * Starts consuming batches: up to {@code batchSize} deliveries per handler call, acked together.
     *
     * @param batchSize the largest batch
     * @param handler applies a batch in one transaction
     * @return the running consumer
     * @throws IOException if the channel cannot be opened or the consumer registered
     */
    public IdempotentRabbitConsumer startBatches(int batchSize, BatchHandler handler) throws IOException {
      if (batchSize < 1) {
        throw new IllegalArgumentException("batchSize must be positive, got " + batchSize);
      }
      this.batchSize = batchSize;
      return launch(Objects.requireNonNull(handler, "handler"));
    }

    private IdempotentRabbitConsumer launch(BatchHandler handler) throws IOException {
      Channel channel = connection.createChannel();
      IdempotentRabbitConsumer consumer = new IdempotentRabbitConsumer(this, channel, handler);
      try {
        channel.basicQos(prefetch > 0 ? prefetch : batchSize == 1 ? 1 : 2 * batchSize);
        consumer.worker.start();
        channel.basicConsume(queue, false, (tag, delivery) -> consumer.deliveries.add(delivery),
            tag -> consumer.running = false);
        return consumer;
      } catch (IOException | RuntimeException e) {
        consumer.close();
        throw e;
      }
    }
  }
}
