package dev.idem.nats;

import dev.idem.runtime.OutboxMessage;
import dev.idem.runtime.OutboxPublisher;
import dev.idem.runtime.PublishOutcome;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The outbox's {@link OutboxPublisher} on NATS JetStream.
 *
 * <p>Each message is published to the subject named by its destination (by default) with {@code Nats-Msg-Id} set to
 * {@link OutboxMessage#messageId()}, so that the stream's duplicate window drops a message published again within
 * it (a second line of defence behind the consumers' dedup), and with the headers
 * {@value OutboxMessage#MESSAGE_ID_HEADER}, {@value OutboxMessage#EVENT_TYPE_HEADER}, {@value #PARTITION_KEY_HEADER}
 * (JetStream has no record key) beside the event's own. A batch is published asynchronously, in order, and every
 * PubAck awaited. Outcomes:
 *
 * <ul>
 *   <li>a PubAck, also one that says duplicate (the stream already has it): {@link PublishOutcome.Status#SENT};
 *   <li>no stream for the subject (no responders), a payload over the server's {@code max_payload} or the
 *       publisher's limit, a stream that refuses its size: {@link PublishOutcome.Status#PARK};
 *   <li>no PubAck within the timeout, the connection lost or not to be had, another JetStream error:
 *       {@link PublishOutcome.Status#RETRY}.
 * </ul>
 *
 * <p>Given a {@link Connection}, the publisher uses it and never closes it; given {@link Options}, it connects when
 * first needed, again after the connection closed, and closes it in {@link #close()}.
 */
public final class JetStreamOutboxPublisher implements OutboxPublisher {

  private static final System.Logger LOG = System.getLogger(JetStreamOutboxPublisher.class.getName());

  /** The header that carries {@link OutboxMessage#partitionKey()}, when there is one. */
  public static final String PARTITION_KEY_HEADER = "idem-partition-key";
  /** JetStream's error code of a message larger than the stream's {@code max_msg_size}. */
  private static final int MESSAGE_SIZE_EXCEEDS_MAXIMUM = 10054;

  private final Connection givenConnection;
  private final Options options;
  private final Function<OutboxMessage, String> subject;
  private final Duration timeout;
  private final int maxPayloadBytes;
  private Connection ownConnection;
  private volatile boolean closed;

  private JetStreamOutboxPublisher(Builder builder) {
    this.givenConnection = builder.connection;
    this.options = builder.options;
    this.subject = builder.subject;
    this.timeout = builder.timeout;
    this.maxPayloadBytes = builder.maxPayloadBytes;
  }

  /**
   * @param connection the application's connection; the publisher never closes it
   * @return a builder of a publisher on that connection
   */
  public static Builder builder(Connection connection) {
    return new Builder(Objects.requireNonNull(connection, "connection"), null);
  }

  /**
   * @param options how to connect; the publisher connects when first needed, again after the connection closed,
   *     and closes it in {@link #close()}
   * @return a builder of a publisher with a connection of its own
   */
  public static Builder builder(Options options) {
    return new Builder(null, Objects.requireNonNull(options, "options"));
  }

  @Override
  public List<PublishOutcome> publish(List<OutboxMessage> messages) throws InterruptedException {
    PublishOutcome[] outcomes = new PublishOutcome[messages.size()];
    if (closed) {
      Arrays.fill(outcomes, PublishOutcome.retry("the publisher is closed"));
      return List.of(outcomes);
    }
    Connection connection;
    JetStream jetStream;
    try {
      connection = connection();
      jetStream = connection.jetStream();
    } catch (IOException | RuntimeException e) {
      Arrays.fill(outcomes, PublishOutcome.retry("NATS unreachable: " + e));
      return List.of(outcomes);
    }
    long serverLimit = connection.getServerInfo() == null ? Long.MAX_VALUE : connection.getServerInfo().getMaxPayload();
    long limit = Math.min(maxPayloadBytes, serverLimit > 0 ? serverLimit : Long.MAX_VALUE);
    List<CompletableFuture<PublishAck>> acks = new ArrayList<>(messages.size());
    for (int i = 0; i < messages.size(); i++) {
      OutboxMessage message = messages.get(i);
      byte[] body = message.payloadBytes();
      if (body.length > limit) {
        outcomes[i] = PublishOutcome.park("payload of " + body.length + " bytes is over the limit of " + limit
            + " bytes" + (limit == serverLimit ? " (the server's max_payload)" : ""));
        acks.add(null);
        continue;
      }
      try {
        acks.add(jetStream.publishAsync(subject.apply(message), headers(message), body,
            PublishOptions.builder().messageId(message.messageId()).build()));
      } catch (IllegalArgumentException e) {
        outcomes[i] = PublishOutcome.park(e.getMessage());
        acks.add(null);
      } catch (RuntimeException e) {
        outcomes[i] = PublishOutcome.retry("publishing failed: " + e);
        acks.add(null);
      }
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    for (int i = 0; i < messages.size(); i++) {
      CompletableFuture<PublishAck> ack = acks.get(i);
      if (ack == null) {
        continue;
      }
      try {
        ack.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        outcomes[i] = PublishOutcome.sent(); // a duplicate PubAck too: the stream holds the message
      } catch (ExecutionException e) {
        outcomes[i] = outcome(e.getCause());
      } catch (java.util.concurrent.TimeoutException e) {
        ack.cancel(false);
        outcomes[i] = PublishOutcome.retry("no PubAck within " + timeout);
      }
    }
    return List.of(outcomes);
  }

  static PublishOutcome outcome(Throwable failure) {
    // The client wraps the cause (a CompletionException, a RuntimeException): look along the chain.
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      String text = String.valueOf(cause.getMessage());
      // A status 503 instead of a PubAck: nobody answers on the subject, i.e. no stream takes it. (A JetStream
      // error such as "temporarily unavailable" comes as a JetStreamApiException instead, and is retried.)
      if (cause instanceof IOException && text.startsWith("Error Publishing: 503")) {
        return PublishOutcome.park("no stream takes the subject (no responders): " + text);
      }
      if (cause instanceof JetStreamApiException api && api.getApiErrorCode() == MESSAGE_SIZE_EXCEEDS_MAXIMUM) {
        return PublishOutcome.park("the stream refuses its size: " + text);
      }
    }
    return PublishOutcome.retry(failure.getClass().getSimpleName() + ": " + failure.getMessage());
  }

  private static Headers headers(OutboxMessage message) {
    Headers headers = new Headers();
    message.headers().forEach(headers::put);
    headers.put(OutboxMessage.MESSAGE_ID_HEADER, message.messageId());
    headers.put(OutboxMessage.EVENT_TYPE_HEADER, message.eventType());
    if (message.partitionKey() != null) {
      headers.put(PARTITION_KEY_HEADER, message.partitionKey());
    }
    return headers;
  }

  private synchronized Connection connection() throws IOException, InterruptedException {
    if (givenConnection != null) {
      if (givenConnection.getStatus() == Connection.Status.CLOSED) {
        throw new IOException("the application's NATS connection is closed");
      }
      return givenConnection;
    }
    if (ownConnection == null || ownConnection.getStatus() == Connection.Status.CLOSED) {
      ownConnection = Nats.connect(options);
    }
    return ownConnection;
  }

  /** Closes the publisher's own connection, if it made one. */
  @Override
  public synchronized void close() {
    closed = true;
    if (ownConnection != null) {
      try {
        ownConnection.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (RuntimeException e) {
        LOG.log(Level.DEBUG, "closing the NATS connection failed", e);
      }
    }
  }

  /** Settings of a {@link JetStreamOutboxPublisher}. */
  public static final class Builder {
    private final Connection connection;
    private final Options options;
    private Function<OutboxMessage, String> subject = OutboxMessage::destination;
    private Duration timeout = Duration.ofSeconds(10);
    private int maxPayloadBytes = Integer.MAX_VALUE;

    private Builder(Connection connection, Options options) {
      this.connection = connection;
      this.options = options;
    }

    /**
     * @param subject the subject of a message; by default its destination (e.g.
     *     {@code m -> m.destination() + "." + m.partitionKey()} to spread keys over subjects)
     * @return this builder
     */
    public Builder subject(Function<OutboxMessage, String> subject) {
      this.subject = Objects.requireNonNull(subject, "subject");
      return this;
    }

    /**
     * @param timeout how long a batch waits for its PubAcks (10 s by default); what is not acknowledged by then is
     *     retried
     * @return this builder
     */
    public Builder timeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("timeout must be positive, got " + timeout);
      }
      this.timeout = timeout;
      return this;
    }

    /**
     * @param maxPayloadBytes a larger payload is parked without being sent (by default only the server's
     *     {@code max_payload} applies)
     * @return this builder
     */
    public Builder maxPayloadBytes(int maxPayloadBytes) {
      if (maxPayloadBytes < 1) {
        throw new IllegalArgumentException("maxPayloadBytes must be positive, got " + maxPayloadBytes);
      }
      this.maxPayloadBytes = maxPayloadBytes;
      return this;
    }

    /** @return the publisher */
    public JetStreamOutboxPublisher build() {
      return new JetStreamOutboxPublisher(this);
    }
  }
}
