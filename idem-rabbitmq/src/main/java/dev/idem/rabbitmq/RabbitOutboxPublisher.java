package dev.idem.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.ShutdownSignalException;
import dev.idem.runtime.OutboxMessage;
import dev.idem.runtime.OutboxPublisher;
import dev.idem.runtime.PublishOutcome;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * The outbox's {@link OutboxPublisher} on RabbitMQ, with publisher confirms.
 *
 * <p>Each message goes to the exchange named by its destination (by default), with the routing key of its
 * partition key (or, when it has none, its event type), {@code mandatory} set, persistent, with
 * {@link OutboxMessage#messageId()} as the AMQP {@code message-id} property and the
 * {@value OutboxMessage#MESSAGE_ID_HEADER} and {@value OutboxMessage#EVENT_TYPE_HEADER} headers beside the event's
 * own. The batch is published on one confirm-mode channel of the publisher's own, then the publisher waits for the
 * broker's confirms. Outcomes:
 *
 * <ul>
 *   <li>confirmed ({@code basic.ack}) and not returned: {@link PublishOutcome.Status#SENT};
 *   <li>returned as unroutable (mandatory: no queue bound for it), or its exchange does not exist, or its payload is
 *       over the size limit: {@link PublishOutcome.Status#PARK};
 *   <li>{@code basic.nack}, no confirm within the timeout, the channel or connection lost, the broker unreachable:
 *       {@link PublishOutcome.Status#RETRY} (it may have arrived: consumers deduplicate by the message id).
 * </ul>
 *
 * <p>Given a {@link Connection}, the publisher opens its channels on it and never closes it; given a
 * {@link ConnectionFactory}, it opens its own connection when first needed, again after it was lost, and closes it
 * in {@link #close()}.
 */
public final class RabbitOutboxPublisher implements OutboxPublisher {

  private static final System.Logger LOG = System.getLogger(RabbitOutboxPublisher.class.getName());

  /** RabbitMQ's own default {@code max_message_size} (16 MiB, since 4.0). */
  public static final int DEFAULT_MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;

  private final Connection givenConnection;
  private final ConnectionFactory factory;
  private final Function<OutboxMessage, String> exchange;
  private final Function<OutboxMessage, String> routingKey;
  private final Duration confirmTimeout;
  private final int maxPayloadBytes;
  private final boolean persistent;
  private final Set<String> knownExchanges = ConcurrentHashMap.newKeySet();
  private final Object lock = new Object();

  private Connection ownConnection;
  private Channel channel;
  private Batch current;
  private volatile boolean closed;

  private RabbitOutboxPublisher(Builder builder) {
    this.givenConnection = builder.connection;
    this.factory = builder.factory;
    this.exchange = builder.exchange;
    this.routingKey = builder.routingKey;
    this.confirmTimeout = builder.confirmTimeout;
    this.maxPayloadBytes = builder.maxPayloadBytes;
    this.persistent = builder.persistent;
  }

  /**
   * @param connection the application's connection; the publisher opens a channel of its own on it and never
   *     closes the connection
   * @return a builder of a publisher on that connection
   */
  public static Builder builder(Connection connection) {
    return new Builder(Objects.requireNonNull(connection, "connection"), null);
  }

  /**
   * @param factory how to connect; the publisher connects when first needed, reconnects after a loss and closes
   *     its connection in {@link #close()}
   * @return a builder of a publisher with a connection of its own
   */
  public static Builder builder(ConnectionFactory factory) {
    return new Builder(null, Objects.requireNonNull(factory, "factory"));
  }

  @Override
  public List<PublishOutcome> publish(List<OutboxMessage> messages) throws InterruptedException {
    PublishOutcome[] outcomes = new PublishOutcome[messages.size()];
    if (closed) {
      Arrays.fill(outcomes, PublishOutcome.retry("the publisher is closed"));
      return List.of(outcomes);
    }
    Channel channel;
    try {
      channel = channel();
    } catch (IOException | TimeoutException | RuntimeException e) {
      Arrays.fill(outcomes, PublishOutcome.retry("RabbitMQ unreachable: " + e));
      return List.of(outcomes);
    }
    Batch batch = new Batch(messages, outcomes);
    synchronized (lock) {
      current = batch;
    }
    try {
      int index = 0;
      try {
        for (; index < messages.size(); index++) {
          OutboxMessage message = messages.get(index);
          byte[] body = message.payloadBytes();
          if (body.length > maxPayloadBytes) {
            outcomes[index] = PublishOutcome.park("payload of " + body.length + " bytes is over the limit of "
                + maxPayloadBytes + " bytes");
            continue;
          }
          String exchangeName = exchange.apply(message);
          String missing = checkExchange(exchangeName);
          if (missing != null) {
            outcomes[index] = PublishOutcome.park(missing);
            continue;
          }
          long sequence = channel.getNextPublishSeqNo();
          batch.pending.put(sequence, index);
          channel.basicPublish(exchangeName, routingKey.apply(message), true, properties(message), body);
        }
      } catch (IOException | AlreadyClosedException e) {
        for (int rest = index; rest < messages.size(); rest++) {
          if (outcomes[rest] == null) {
            outcomes[rest] = PublishOutcome.retry("publishing failed: " + e);
          }
        }
        int failedAt = index;
        batch.pending.values().removeIf(i -> i >= failedAt);
        dropChannel();
      }
      awaitConfirms(batch, channel);
    } finally {
      synchronized (lock) {
        current = null;
      }
    }
    for (int i = 0; i < outcomes.length; i++) {
      if (outcomes[i] == null) {
        outcomes[i] = PublishOutcome.retry("no confirm");
      }
    }
    return List.of(outcomes);
  }

  private void awaitConfirms(Batch batch, Channel channel) throws InterruptedException {
    long deadline = System.nanoTime() + confirmTimeout.toNanos();
    synchronized (lock) {
      while (!batch.pending.isEmpty() && channel.isOpen()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        lock.wait(Math.max(1, left / 1_000_000));
      }
      String reason;
      if (batch.pending.isEmpty()) {
        return;
      } else if (!channel.isOpen()) {
        ShutdownSignalException cause = channel.getCloseReason();
        reason = "the channel closed before the confirm: " + (cause == null ? "unknown" : cause.getMessage());
        knownExchanges.clear(); // a channel closed by an error may mean an exchange went away
      } else {
        reason = "no confirm within " + confirmTimeout;
      }
      for (int index : batch.pending.values()) {
        batch.outcomes[index] = PublishOutcome.retry(reason);
      }
      batch.pending.clear();
    }
    if (!channel.isOpen()) {
      dropChannel();
    }
  }

  private AMQP.BasicProperties properties(OutboxMessage message) {
    Map<String, Object> headers = new HashMap<>(message.headers());
    headers.put(OutboxMessage.MESSAGE_ID_HEADER, message.messageId());
    headers.put(OutboxMessage.EVENT_TYPE_HEADER, message.eventType());
    return new AMQP.BasicProperties.Builder()
        .messageId(message.messageId())
        .type(message.eventType())
        .contentType("application/json")
        .contentEncoding("UTF-8")
        .deliveryMode(persistent ? 2 : 1)
        .timestamp(java.util.Date.from(message.createdAt()))
        .headers(headers)
        .build();
  }

  /** @return null if the exchange exists, else why the message is parked */
  private String checkExchange(String name) throws IOException {
    if (name.isEmpty() || knownExchanges.contains(name)) {
      return null;
    }
    Channel probe = connection().createChannel();
    try {
      probe.exchangeDeclarePassive(name);
      knownExchanges.add(name);
      return null;
    } catch (IOException e) {
      // A passive declare of a missing exchange closes its channel with 404 NOT_FOUND.
      if (e.getCause() instanceof ShutdownSignalException signal && !signal.isHardError()
          && signal.getMessage().contains("NOT_FOUND")) {
        return "no exchange '" + name + "' on the broker";
      }
      throw e;
    } finally {
      if (probe.isOpen()) {
        try {
          probe.close();
        } catch (TimeoutException | IOException | AlreadyClosedException e) {
          LOG.log(Level.DEBUG, "closing the probe channel failed", e);
        }
      }
    }
  }

  private Channel channel() throws IOException, TimeoutException {
    if (channel != null && channel.isOpen()) {
      return channel;
    }
    Channel opened = connection().createChannel();
    opened.confirmSelect();
    opened.addReturnListener(returned -> onReturn(returned.getProperties().getMessageId(),
        returned.getExchange(), returned.getRoutingKey(), returned.getReplyCode(), returned.getReplyText()));
    opened.addConfirmListener((sequence, multiple) -> onConfirm(sequence, multiple, true),
        (sequence, multiple) -> onConfirm(sequence, multiple, false));
    opened.addShutdownListener(cause -> {
      synchronized (lock) {
        lock.notifyAll();
      }
    });
    channel = opened;
    return opened;
  }

  private Connection connection() throws IOException {
    if (givenConnection != null) {
      return givenConnection;
    }
    if (ownConnection == null || !ownConnection.isOpen()) {
      if (ownConnection != null) {
        ownConnection.abort();
      }
      try {
        ownConnection = factory.newConnection("idem-outbox");
      } catch (TimeoutException e) {
        throw new IOException("connecting timed out", e);
      }
    }
    return ownConnection;
  }

  private void onReturn(String messageId, String exchangeName, String key, int code, String text) {
    synchronized (lock) {
      if (current != null && messageId != null) {
        current.returned.put(messageId,
            "unroutable: exchange '" + exchangeName + "', routing key '" + key + "': " + code + " " + text);
      }
    }
  }

  private void onConfirm(long sequence, boolean multiple, boolean ack) {
    synchronized (lock) {
      Batch batch = current;
      if (batch == null) {
        return;
      }
      ConcurrentNavigableMap<Long, Integer> confirmed =
          multiple ? batch.pending.headMap(sequence, true) : batch.pending.subMap(sequence, true, sequence, true);
      for (int index : confirmed.values()) {
        String returned = batch.returned.get(batch.messages.get(index).messageId());
        if (returned != null) {
          batch.outcomes[index] = PublishOutcome.park(returned);
        } else if (ack) {
          batch.outcomes[index] = PublishOutcome.sent();
        } else {
          batch.outcomes[index] = PublishOutcome.retry("the broker refused it (basic.nack)");
        }
      }
      confirmed.clear();
      lock.notifyAll();
    }
  }

  private void dropChannel() {
    Channel old = channel;
    channel = null;
    if (old != null && old.isOpen()) {
      try {
        old.abort();
      } catch (IOException | RuntimeException e) {
        LOG.log(Level.DEBUG, "aborting the channel failed", e);
      }
    }
  }

  /** Closes the publisher's channel and, if it opened it, its connection. */
  @Override
  public void close() {
    closed = true;
    dropChannel();
    if (ownConnection != null) {
      ownConnection.abort();
    }
  }

  private static final class Batch {
    final List<OutboxMessage> messages;
    final PublishOutcome[] outcomes;
    final ConcurrentSkipListMap<Long, Integer> pending = new ConcurrentSkipListMap<>();
    final Map<String, String> returned = new HashMap<>();

    Batch(List<OutboxMessage> messages, PublishOutcome[] outcomes) {
      this.messages = messages;
      this.outcomes = outcomes;
    }
  }

  /** Settings of a {@link RabbitOutboxPublisher}. */
  public static final class Builder {
    private final Connection connection;
    private final ConnectionFactory factory;
    private Function<OutboxMessage, String> exchange = OutboxMessage::destination;
    private Function<OutboxMessage, String> routingKey =
        message -> message.partitionKey() != null ? message.partitionKey() : message.eventType();
    private Duration confirmTimeout = Duration.ofSeconds(10);
    private int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;
    private boolean persistent = true;

    private Builder(Connection connection, ConnectionFactory factory) {
      this.connection = connection;
      this.factory = factory;
    }

    /**
     * @param exchange the exchange of a message; by default its destination ({@code ""} is the default exchange,
     *     where the routing key names the queue)
     * @return this builder
     */
    public Builder exchange(Function<OutboxMessage, String> exchange) {
      this.exchange = Objects.requireNonNull(exchange, "exchange");
      return this;
    }

    /**
     * @param routingKey the routing key of a message; by default its partition key, or its event type when it has
     *     none
     * @return this builder
     */
    public Builder routingKey(Function<OutboxMessage, String> routingKey) {
      this.routingKey = Objects.requireNonNull(routingKey, "routingKey");
      return this;
    }

    /**
     * @param confirmTimeout how long a batch waits for its confirms (10 s by default); the unconfirmed are retried
     * @return this builder
     */
    public Builder confirmTimeout(Duration confirmTimeout) {
      if (confirmTimeout.isNegative() || confirmTimeout.isZero()) {
        throw new IllegalArgumentException("confirmTimeout must be positive, got " + confirmTimeout);
      }
      this.confirmTimeout = confirmTimeout;
      return this;
    }

    /**
     * @param maxPayloadBytes a larger payload is parked without being sent (16 MiB
     *     by default, the broker's default {@code max_message_size})
     * @return this builder
     */
    public Builder maxPayloadBytes(int maxPayloadBytes) {
      if (maxPayloadBytes < 1) {
        throw new IllegalArgumentException("maxPayloadBytes must be positive, got " + maxPayloadBytes);
      }
      this.maxPayloadBytes = maxPayloadBytes;
      return this;
    }

    /**
     * @param persistent whether messages are published persistent (delivery mode 2; the default)
     * @return this builder
     */
    public Builder persistent(boolean persistent) {
      this.persistent = persistent;
      return this;
    }

    /** @return the publisher */
    public RabbitOutboxPublisher build() {
      return new RabbitOutboxPublisher(this);
    }

  }
}
