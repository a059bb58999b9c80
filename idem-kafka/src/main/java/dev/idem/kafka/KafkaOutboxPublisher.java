package dev.idem.kafka;

import dev.idem.runtime.OutboxMessage;
import dev.idem.runtime.OutboxPublisher;
import dev.idem.runtime.PublishOutcome;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownProducerIdException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The outbox's {@link OutboxPublisher} on Kafka, with an idempotent producer ({@code enable.idempotence=true},
 * {@code acks=all}) of its own.
 *
 * <p>Each message becomes a record of the topic named by its destination (by default), keyed by its partition key
 * (so one key stays in one partition, in order), with the headers {@value OutboxMessage#MESSAGE_ID_HEADER} and
 * {@value OutboxMessage#EVENT_TYPE_HEADER} beside the event's own. A batch is sent and every send awaited, up to the
 * publisher's timeout (as a {@code flush()} would, but bounded).
 * Outcomes:
 *
 * <ul>
 *   <li>acknowledged by all in-sync replicas: {@link PublishOutcome.Status#SENT};
 *   <li>{@link RecordTooLargeException}, {@link RecordBatchTooLargeException}, {@link InvalidTopicException},
 *       {@link InvalidRecordException}, {@link SerializationException}, {@link TopicAuthorizationException}: the
 *       broker can never take it, {@link PublishOutcome.Status#PARK};
 *   <li>anything else (a retriable error, a timeout, the broker unreachable, a producer that must be replaced):
 *       {@link PublishOutcome.Status#RETRY}. After an error that leaves the producer unusable (fenced, out of
 *       sequence, authentication) the next batch gets a new producer.
 * </ul>
 *
 * <p>The idempotent producer drops the duplicates its own retries would make, within one producer session only: a
 * message the relay publishes again (its confirmation lost, the relay restarted) is a new record, and consumers
 * deduplicate it by the message id header ({@link IdempotentKafkaConsumer}).
 */
public final class KafkaOutboxPublisher implements OutboxPublisher {

  private static final System.Logger LOG = System.getLogger(KafkaOutboxPublisher.class.getName());

  private final Map<String, Object> config;
  private final Function<OutboxMessage, String> topic;
  private final Duration timeout;
  private final Object producerLock = new Object();
  private Producer<byte[], byte[]> producer;
  private volatile boolean closed;

  private KafkaOutboxPublisher(Builder builder) {
    this.config = builder.config;
    this.topic = builder.topic;
    this.timeout = builder.timeout;
  }

  /**
   * @param producerConfig the producer's settings ({@code bootstrap.servers} at least); the publisher sets
   *     {@code enable.idempotence=true}, {@code acks=all} and byte-array serializers, and refuses settings that
   *     contradict them
   * @return a builder
   */
  public static Builder builder(Map<String, ?> producerConfig) {
    return new Builder(producerConfig);
  }

  @Override
  public List<PublishOutcome> publish(List<OutboxMessage> messages) throws InterruptedException {
    PublishOutcome[] outcomes = new PublishOutcome[messages.size()];
    if (closed) {
      Arrays.fill(outcomes, PublishOutcome.retry("the publisher is closed"));
      return List.of(outcomes);
    }
    Producer<byte[], byte[]> producer;
    try {
      producer = producer();
    } catch (KafkaException e) {
      Arrays.fill(outcomes, PublishOutcome.retry("could not make a Kafka producer: " + e));
      return List.of(outcomes);
    }
    List<Future<RecordMetadata>> sends = new ArrayList<>(messages.size());
    Map<String, String> unavailableTopics = new HashMap<>();
    boolean replaceProducer = false;
    try {
      for (int i = 0; i < messages.size(); i++) {
        OutboxMessage message = messages.get(i);
        String topicName = topic.apply(message);
        String unavailable = unavailableTopics.get(topicName);
        if (unavailable != null) {
          // The metadata wait already timed out for this topic: do not wait again for each of its messages.
          outcomes[i] = PublishOutcome.retry(unavailable);
          sends.add(null);
          continue;
        }
        String invalid = invalidTopic(topicName);
        if (invalid != null) {
          outcomes[i] = PublishOutcome.park(invalid);
          sends.add(null);
          continue;
        }
        try {
          sends.add(producer.send(record(topicName, message)));
        } catch (InterruptException e) {
          throw interrupted(e);
        } catch (KafkaException e) {
          sends.add(null);
          outcomes[i] = outcome(e);
          replaceProducer |= isFatal(e);
          if (e instanceof TimeoutException) {
            unavailableTopics.put(topicName, outcomes[i].reason());
          }
        }
      }
    } catch (InterruptException e) {
      throw interrupted(e);
    }
    // No flush(): it waits without a bound (a record of a topic whose metadata never comes waits for
    // delivery.timeout.ms). The records leave after linger.ms anyway; each is awaited until the batch's deadline.
    long deadline = System.nanoTime() + timeout.toNanos();
    for (int i = 0; i < messages.size(); i++) {
      Future<RecordMetadata> send = sends.get(i);
      if (send == null) {
        continue;
      }
      try {
        send.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        outcomes[i] = PublishOutcome.sent();
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        outcomes[i] = cause instanceof Exception exception ? outcome(exception)
            : PublishOutcome.retry(String.valueOf(cause));
        replaceProducer |= isFatal(cause);
      } catch (java.util.concurrent.TimeoutException e) {
        outcomes[i] = PublishOutcome.retry("not acknowledged within " + timeout);
      }
    }
    if (replaceProducer) {
      discardProducer();
    }
    return List.of(outcomes);
  }

  private ProducerRecord<byte[], byte[]> record(String topicName, OutboxMessage message) {
    byte[] key = message.partitionKey() == null ? null : message.partitionKey().getBytes(StandardCharsets.UTF_8);
    ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topicName, null, key, message.payloadBytes());
    message.headers().forEach((name, value) ->
        record.headers().add(new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8))));
    record.headers().add(OutboxMessage.MESSAGE_ID_HEADER, message.messageId().getBytes(StandardCharsets.UTF_8));
    record.headers().add(OutboxMessage.EVENT_TYPE_HEADER, message.eventType().getBytes(StandardCharsets.UTF_8));
    return record;
  }

  /** @return why no topic can have that name, or null if it is valid (the broker's rule, checked before sending) */
  static String invalidTopic(String name) {
    try {
      Topic.validate(name);
      return null;
    } catch (InvalidTopicException e) {
      return "InvalidTopicException: " + e.getMessage();
    }
  }

  static PublishOutcome outcome(Exception e) {
    if (e instanceof RecordTooLargeException || e instanceof RecordBatchTooLargeException
        || e instanceof InvalidTopicException || e instanceof InvalidRecordException
        || e instanceof SerializationException || e instanceof TopicAuthorizationException) {
      return PublishOutcome.park(e.getClass().getSimpleName() + ": " + e.getMessage());
    }
    return PublishOutcome.retry(e.getClass().getSimpleName() + ": " + e.getMessage());
  }

  private static boolean isFatal(Throwable e) {
    return e instanceof ProducerFencedException || e instanceof OutOfOrderSequenceException
        || e instanceof UnknownProducerIdException || e instanceof InvalidProducerEpochException
        || e instanceof AuthenticationException || e instanceof ClusterAuthorizationException
        || e instanceof IllegalStateException;
  }

  private static InterruptedException interrupted(InterruptException e) {
    InterruptedException interrupted = new InterruptedException("interrupted while publishing to Kafka");
    interrupted.initCause(e);
    Thread.interrupted();
    return interrupted;
  }

  private Producer<byte[], byte[]> producer() {
    synchronized (producerLock) {
      if (producer == null) {
        producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
      }
      return producer;
    }
  }

  private void discardProducer() {
    Producer<byte[], byte[]> old;
    synchronized (producerLock) {
      old = producer;
      producer = null;
    }
    if (old != null) {
      old.close(Duration.ZERO);
    }
  }

  /** Closes the producer, waiting up to the timeout for records in flight. */
  @Override
  public void close() {
    closed = true;
    Producer<byte[], byte[]> old;
    synchronized (producerLock) {
      old = producer;
      producer = null;
    }
    if (old != null) {
      old.close(timeout);
    }
  }

  /** Settings of a {@link KafkaOutboxPublisher}. */
  public static final class Builder {
    private final Map<String, Object> config;
    private Function<OutboxMessage, String> topic = OutboxMessage::destination;
    private Duration timeout = Duration.ofSeconds(30);

    private Builder(Map<String, ?> producerConfig) {
      Map<String, Object> copy = new HashMap<>(Objects.requireNonNull(producerConfig, "producerConfig"));
      if (!copy.containsKey(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG)) {
        throw new IllegalArgumentException("producerConfig needs " + ProducerConfig.BOOTSTRAP_SERVERS_CONFIG);
      }
      require(copy, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, List.of("true"));
      require(copy, ProducerConfig.ACKS_CONFIG, List.of("all", "-1"));
      for (String serializer : List.of(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
          ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ProducerConfig.TRANSACTIONAL_ID_CONFIG)) {
        if (copy.containsKey(serializer)) {
          throw new IllegalArgumentException("producerConfig must not set " + serializer
              + ": the publisher sends byte arrays with an idempotent, non-transactional producer of its own");
        }
      }
      copy.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
      copy.put(ProducerConfig.ACKS_CONFIG, "all");
      copy.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, "5000");
      copy.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, "5");
      copy.putIfAbsent(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
      copy.putIfAbsent(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
      copy.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "idem-outbox");
      this.config = copy;
    }

    private static void require(Map<String, Object> config, String name, List<String> allowed) {
      Object value = config.get(name);
      if (value != null && !allowed.contains(String.valueOf(value).toLowerCase(java.util.Locale.ROOT))) {
        throw new IllegalArgumentException("producerConfig sets " + name + "=" + value
            + ", but the outbox publisher needs " + name + "=" + allowed.get(0)
            + " (no lost or reordered event); remove the setting");
      }
    }

    /**
     * @param topic the topic of a message; by default its destination
     * @return this builder
     */
    public Builder topic(Function<OutboxMessage, String> topic) {
      this.topic = Objects.requireNonNull(topic, "topic");
      return this;
    }

    /**
     * @param timeout how long a batch waits for its acknowledgements once sent (30 s by default); what is not
     *     acknowledged by then is retried. The producer's own {@code delivery.timeout.ms} (30 s by default here)
     *     and {@code max.block.ms} (5 s by default here: the wait for a topic's metadata, e.g. while the broker is
     *     unreachable, once per topic and batch) bound it too
     * @return this builder
     */
    public Builder timeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("timeout must be positive, got " + timeout);
      }
      this.timeout = timeout;
      return this;
    }

    /** @return the publisher; its producer is made when the first batch is published */
    public KafkaOutboxPublisher build() {
      return new KafkaOutboxPublisher(this);
    }
  }
}
