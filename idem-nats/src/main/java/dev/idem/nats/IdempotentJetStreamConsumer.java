package dev.idem.nats;

import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.runtime.InvalidIdempotencyKeyException;
import io.nats.client.Connection;
import io.nats.client.ConsumerContext;
import io.nats.client.FetchConsumeOptions;
import io.nats.client.FetchConsumer;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamStatusCheckedException;
import io.nats.client.Message;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A pull consumer of a JetStream durable consumer (explicit acks) that acks a message only after the handler
 * returned.
 *
 * <p>The handler deduplicates and applies the message in one transaction: it calls a generated
 * {@code @IdempotentCommand} method keyed by ({@link JetStreamMessage#messageId()}, {@link JetStreamMessage#group()}),
 * which returns only after its transaction committed; then the message is acked ({@code ackSync}). A consumer that
 * dies between that commit and the ack gets the message again once the durable consumer's {@code ack_wait} passes,
 * and the recorded claim makes it a no-op. The loop fetches up to the batch size at a time. What happens after the
 * handler:
 *
 * <ul>
 *   <li>it returned: the messages are acked;
 *   <li>it threw another exception: nothing committed; the messages are nak'ed with the retry backoff as delay, and
 *       JetStream delivers them again;
 *   <li>it threw {@link IdempotencyKeyReusedException} or {@link InvalidIdempotencyKeyException}: redelivering cannot
 *       help; the message is terminated ({@code term}); a batch refused so is handled again one message per call, so
 *       that only the bad message is terminated;
 *   <li>it threw an {@link Error}: the loop stops as a crashed consumer would, acking nothing more; JetStream delivers
 *       the unacked messages again after {@code ack_wait}. {@link #failure()} tells why.
 * </ul>
 *
 * <p>The durable consumer (its {@code ack_wait}, {@code max_deliver}, filter) is the application's to create; this
 * class binds to it. It runs on one thread of its own, started by the builder and stopped by {@link #close()}.
 */
public final class IdempotentJetStreamConsumer implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(IdempotentJetStreamConsumer.class.getName());

  /** Applies one message; see the class description for what its outcome means. */
  @FunctionalInterface
  public interface Handler {
    /**
     * @param message the message
     * @throws Exception to have it delivered again (or terminated, see the class description)
     */
    void handle(JetStreamMessage message) throws Exception;
  }

  /** Applies a fetched batch in one transaction; see the class description for what its outcome means. */
  @FunctionalInterface
  public interface BatchHandler {
    /**
     * @param messages the messages, in stream order
     * @throws Exception to have them all delivered again (or handled one by one, see the class description)
     */
    void handle(List<JetStreamMessage> messages) throws Exception;
  }

  private enum Outcome { DONE, RETRY, REJECTED }

  private final ConsumerContext context;
  private final String group;
  private final int batchSize;
  private final boolean batches;
  private final Duration fetchWait;
  private final Duration retryBackoff;
  private final Duration ackTimeout;
  private final BatchHandler handler;
  private final AtomicLong acked = new AtomicLong();
  private final AtomicLong retried = new AtomicLong();
  private final AtomicLong rejected = new AtomicLong();
  private final AtomicLong redelivered = new AtomicLong();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final Thread worker;
  private volatile boolean running = true;
  private volatile Throwable failure;

  private IdempotentJetStreamConsumer(Builder builder, ConsumerContext context, int batchSize, boolean batches,
                                      BatchHandler handler) {
    this.context = context;
    this.group = builder.group;
    this.batchSize = batchSize;
    this.batches = batches;
    this.fetchWait = builder.fetchWait;
    this.retryBackoff = builder.retryBackoff;
    this.ackTimeout = builder.ackTimeout;
    this.handler = handler;
    this.worker = new Thread(this::work, "idem-jetstream-" + group);
  }

  /**
   * @param connection the application's connection (never closed by the consumer)
   * @param stream the stream's name
   * @param durable the name of the stream's durable pull consumer, with explicit acks; it is also the group unless
   *     {@link Builder#group(String)} says otherwise
   * @return a builder
   */
  public static Builder builder(Connection connection, String stream, String durable) {
    return new Builder(connection, stream, durable);
  }

  private void work() {
    try {
      while (running) {
        List<Message> fetched = fetch();
        if (!fetched.isEmpty()) {
          process(fetched);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException | JetStreamApiException | RuntimeException e) {
      failure = e;
      LOG.log(Level.ERROR, "The JetStream consumer of " + group + " stopped", e);
    } catch (Error e) {
      failure = e;
      LOG.log(Level.ERROR, "The JetStream consumer of " + group + " crashed; unacked messages come again", e);
    } finally {
      running = false;
      stopped.countDown();
    }
  }

  private List<Message> fetch() throws IOException, JetStreamApiException, InterruptedException {
    List<Message> fetched = new ArrayList<>(batchSize);
    FetchConsumer fetch = context.fetch(FetchConsumeOptions.builder()
        .maxMessages(batchSize).expiresIn(fetchWait.toMillis()).build());
    try {
      Message message;
      while (running && (message = fetch.nextMessage()) != null) {
        fetched.add(message);
      }
    } catch (JetStreamStatusCheckedException e) {
      LOG.log(Level.WARNING, "Fetching from " + group + " failed; fetching again", e);
    } finally {
      try {
        fetch.close();
      } catch (Exception e) {
        LOG.log(Level.DEBUG, "Closing a fetch failed", e);
      }
    }
    return fetched;
  }

  private void process(List<Message> fetched) throws InterruptedException {
    List<JetStreamMessage> messages = new ArrayList<>(fetched.size());
    for (Message message : fetched) {
      if (message.metaData().deliveredCount() > 1) {
        redelivered.incrementAndGet();
      }
      messages.add(new JetStreamMessage(JetStreamMessage.messageIdOf(message), group, message));
    }
    if (batches) {
      Outcome outcome = call(messages);
      if (outcome == Outcome.DONE) {
        for (JetStreamMessage message : messages) {
          ack(message);
        }
        return;
      }
      if (outcome == Outcome.RETRY) {
        messages.forEach(message -> message.message().nakWithDelay(retryBackoff));
        return;
      }
      // Refused as a whole: one message per call, so that only the bad one is terminated.
    }
    for (JetStreamMessage message : messages) {
      Outcome outcome = call(List.of(message));
      if (outcome == Outcome.DONE) {
        ack(message);
      } else if (outcome == Outcome.RETRY) {
        message.message().nakWithDelay(retryBackoff);
      } else {
        message.message().term();
        rejected.incrementAndGet();
      }
    }
  }

  private Outcome call(List<JetStreamMessage> messages) throws InterruptedException {
    try {
      handler.handle(messages);
      return Outcome.DONE;
    } catch (IdempotencyKeyReusedException | InvalidIdempotencyKeyException e) {
      if (messages.size() == 1) {
        LOG.log(Level.ERROR, "Terminating " + messages.get(0).messageId() + ": " + e.getMessage());
      }
      return Outcome.REJECTED;
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      LOG.log(Level.WARNING, "Handling " + messages.size() + " message(s) failed; they come again", e);
      retried.addAndGet(messages.size());
      return Outcome.RETRY;
    }
  }

  private void ack(JetStreamMessage message) throws InterruptedException {
    // The handler returned: its transaction committed. Now, and only now, ack; a lost ack only means a redelivery.
    try {
      message.message().ackSync(ackTimeout);
      acked.incrementAndGet();
    } catch (java.util.concurrent.TimeoutException e) {
      LOG.log(Level.WARNING, "The ack of " + message.messageId() + " was not confirmed; it may come again");
    }
  }

  /** @return how many messages were acked */
  public long acked() {
    return acked.get();
  }

  /** @return how many messages were nak'ed after a failed handler */
  public long retried() {
    return retried.get();
  }

  /** @return how many messages were terminated (key reused, invalid key) */
  public long rejected() {
    return rejected.get();
  }

  /** @return how many messages came with a delivery count above 1 */
  public long redelivered() {
    return redelivered.get();
  }

  /** @return whether the loop is still running */
  public boolean isRunning() {
    return running;
  }

  /** @return what stopped the loop (an {@link Error} from the handler, a JetStream error), or null */
  public Throwable failure() {
    return failure;
  }

  /**
   * Waits until the loop stopped.
   *
   * @param timeout how long to wait
   * @return whether it stopped in time
   * @throws InterruptedException if interrupted
   */
  public boolean awaitStop(Duration timeout) throws InterruptedException {
    return stopped.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Stops the loop after the messages in hand (acked or nak'ed); waits for it. Interrupted while waiting, it keeps
   * the interrupt status.
   */
  @Override
  public void close() {
    running = false;
    if (Thread.currentThread() != worker) {
      try {
        worker.join(fetchWait.toMillis() + TimeUnit.SECONDS.toMillis(30));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Settings of an {@link IdempotentJetStreamConsumer}. */
  public static final class Builder {
    private final Connection connection;
    private final String stream;
    private final String durable;
    private String group;
    private Duration fetchWait = Duration.ofSeconds(1);
    private Duration retryBackoff = Duration.ofSeconds(1);
    private Duration ackTimeout = Duration.ofSeconds(5);

    private Builder(Connection connection, String stream, String durable) {
      this.connection = Objects.requireNonNull(connection, "connection");
      this.stream = Objects.requireNonNull(stream, "stream");
      this.durable = Objects.requireNonNull(durable, "durable");
      this.group = durable;
    }

    /**
     * @param group the group of the dedup key (by default the durable consumer's name)
     * @return this builder
     */
    public Builder group(String group) {
      this.group = Objects.requireNonNull(group, "group");
      return this;
    }

    /**
     * @param fetchWait how long one fetch waits for messages (1 s by default, JetStream's least)
     * @return this builder
     */
    public Builder fetchWait(Duration fetchWait) {
      if (fetchWait.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new IllegalArgumentException("fetchWait must be at least 1 s (JetStream's least expiry of a pull), got "
            + fetchWait);
      }
      this.fetchWait = fetchWait;
      return this;
    }

    /**
     * @param retryBackoff the nak delay after a failed handler (1 s by default)
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
     * @param ackTimeout how long an ack waits for the server's confirmation (5 s by default)
     * @return this builder
     */
    public Builder ackTimeout(Duration ackTimeout) {
      this.ackTimeout = Objects.requireNonNull(ackTimeout, "ackTimeout");
      return this;
    }

    /**
     * Binds to the durable consumer and starts the loop, one message per handler call.
     *
     * @param handler applies one message
     * @return the running consumer
     * @throws IOException if the server cannot be reached
     * @throws JetStreamApiException if the stream or the durable consumer does not exist
     */
    public IdempotentJetStreamConsumer start(Handler handler) throws IOException, JetStreamApiException {
      Objects.requireNonNull(handler, "handler");
      return launch(1, false, messages -> handler.handle(messages.get(0)));
    }

    /**
     * Binds to the durable consumer and starts the loop, up to {@code batchSize} messages per handler call.
     *
     * @param batchSize the largest batch (one fetch)
     * @param handler applies a batch in one transaction
     * @return the running consumer
     * @throws IOException if the server cannot be reached
     * @throws JetStreamApiException if the stream or the durable consumer does not exist
     */
    public IdempotentJetStreamConsumer startBatches(int batchSize, BatchHandler handler)
        throws IOException, JetStreamApiException {
      if (batchSize < 1) {
        throw new IllegalArgumentException("batchSize must be positive, got " + batchSize);
      }
      return launch(batchSize, true, Objects.requireNonNull(handler, "handler"));
    }

    private IdempotentJetStreamConsumer launch(int batchSize, boolean batches, BatchHandler handler)
        throws IOException, JetStreamApiException {
      ConsumerContext context = connection.getStreamContext(stream).getConsumerContext(durable);
      IdempotentJetStreamConsumer consumer =
          new IdempotentJetStreamConsumer(this, context, batchSize, batches, handler);
      consumer.worker.start();
      return consumer;
    }
  }
}
