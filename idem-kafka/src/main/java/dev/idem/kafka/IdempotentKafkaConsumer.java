package dev.idem.kafka;

import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.runtime.InvalidIdempotencyKeyException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A Kafka poll loop that commits a record's offset only after the handler returned.
 *
 * <p>The handler deduplicates and applies the record in one transaction: it calls a generated
 * {@code @IdempotentCommand} method keyed by ({@link KafkaMessage#messageId()}, {@link KafkaMessage#group()}), which
 * returns only after its transaction committed. The offsets of what was handled are committed ({@code commitSync})
 * after each poll's records, and for revoked partitions when a rebalance takes them away. A consumer that dies
 * between the handler's commit and the offset commit has the records delivered again, to itself or to the member
 * that takes the partition over, and the recorded claims make them no-ops.
 *
 * <p>Records are handled per partition, in offset order: one per call ({@link Builder#start(Handler)}) or all of a
 * partition's records from one poll per call ({@link Builder#startBatches(BatchHandler)}). What happens after the
 * handler:
 *
 * <ul>
 *   <li>it returned: the records are done and their offsets committed;
 *   <li>it threw another exception: nothing committed; the partition is sought back to the first record not done
 *       and polled again after the retry backoff, so its order holds;
 *   <li>it threw {@link IdempotencyKeyReusedException} or {@link InvalidIdempotencyKeyException}: redelivering cannot
 *       help; the record is skipped (logged and counted as rejected) and its offset committed; a batch refused so is
 *       handled again one record per call, so that only the bad record is skipped;
 *   <li>it threw an {@link Error}: the loop stops as a crashed consumer would, without committing; the consumer
 *       leaves the group and the records not committed are delivered again. {@link #failure()} tells why.
 * </ul>
 *
 * <p>The consumer ({@code enable.auto.commit=false}) lives on one thread of its own, started by the builder and
 * stopped by {@link #close()}.
 */
public final class IdempotentKafkaConsumer implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(IdempotentKafkaConsumer.class.getName());

  /** Applies one record; see the class description for what its outcome means. */
  @FunctionalInterface
  public interface Handler {
    /**
     * @param message the record
     * @throws Exception to have it delivered again (or skipped, see the class description)
     */
    void handle(KafkaMessage message) throws Exception;
  }

  /** Applies the records of one partition from one poll in one transaction. */
  @FunctionalInterface
  public interface BatchHandler {
    /**
     * @param messages records of one partition, in offset order
     * @throws Exception to have them all delivered again (or handled one by one, see the class description)
     */
    void handle(List<KafkaMessage> messages) throws Exception;
  }

  private final Consumer<byte[], byte[]> consumer;
  private final Collection<String> topics;
  private final String group;
  private final Duration pollTimeout;
  private final Duration retryBackoff;
  private final BatchHandler batchHandler;
  private final boolean batches;
  private final Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>();
  private final AtomicLong handled = new AtomicLong();
  private final AtomicLong committed = new AtomicLong();
  private final AtomicLong retried = new AtomicLong();
  private final AtomicLong rejected = new AtomicLong();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final Thread worker;
  private volatile boolean running = true;
  private volatile Throwable failure;

  private IdempotentKafkaConsumer(Builder builder, BatchHandler batchHandler, boolean batches) {
    this.consumer = new KafkaConsumer<>(builder.config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    this.topics = builder.topics;
    this.group = String.valueOf(builder.config.get(ConsumerConfig.GROUP_ID_CONFIG));
    this.pollTimeout = builder.pollTimeout;
    this.retryBackoff = builder.retryBackoff;
    this.batchHandler = batchHandler;
    this.batches = batches;
    this.worker = new Thread(this::work, "idem-kafka-" + group);
  }

  /**
   * @param consumerConfig the consumer's settings: {@code bootstrap.servers} and {@code group.id} at least (the group
   *     is also the dedup key's group); the consumer sets {@code enable.auto.commit=false} and byte-array
   *     deserializers, and refuses settings that contradict them
   * @param topics the topics to subscribe to
   * @return a builder
   */
  public static Builder builder(Map<String, ?> consumerConfig, Collection<String> topics) {
    return new Builder(consumerConfig, topics);
  }

  private void work() {
    boolean crashed = false;
    try {
      consumer.subscribe(topics, new Rebalance());
      while (running) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(pollTimeout);
        boolean failed = false;
        for (TopicPartition partition : records.partitions()) {
          failed |= !handle(partition, records.records(partition));
        }
        commitDone();
        if (failed && running) {
          Thread.sleep(retryBackoff.toMillis());
        }
      }
    } catch (WakeupException | InterruptedException e) {
      // close() stops the loop
    } catch (RuntimeException e) {
      failure = e;
      LOG.log(Level.ERROR, "The Kafka consumer of " + group + " stopped", e);
    } catch (Error e) {
      failure = e;
      crashed = true;
      done.clear(); // closing revokes the partitions: the revoke must not commit what the crash left
      LOG.log(Level.ERROR, "The Kafka consumer of " + group + " crashed; records not committed come again", e);
    } finally {
      running = false;
      try {
        if (!crashed) {
          commitDone();
        }
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "Committing the offsets on close failed; those records come again", e);
      } finally {
        consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(10)));
        stopped.countDown();
      }
    }
  }

  /** @return whether every record of the partition was done; if not, the partition was sought back */
  private boolean handle(TopicPartition partition, List<ConsumerRecord<byte[], byte[]>> records) {
    List<KafkaMessage> messages = new ArrayList<>(records.size());
    for (ConsumerRecord<byte[], byte[]> record : records) {
      messages.add(new KafkaMessage(KafkaMessage.messageIdOf(record), group, record));
    }
    if (batches) {
      Outcome outcome = call(messages);
      if (outcome == Outcome.DONE) {
        markDone(partition, records.get(records.size() - 1));
        return true;
      }
      if (outcome == Outcome.RETRY) {
        return seekBack(partition, records.get(0));
      }
      // Refused as a whole: one record per call, so that only the bad one is skipped.
    }
    for (KafkaMessage message : messages) {
      Outcome outcome = call(List.of(message));
      if (outcome == Outcome.RETRY) {
        return seekBack(partition, message.record());
      }
      if (outcome == Outcome.REJECTED) {
        rejected.incrementAndGet();
      }
      markDone(partition, message.record());
    }
    return true;
  }

  private enum Outcome { DONE, RETRY, REJECTED }

  private Outcome call(List<KafkaMessage> messages) {
    try {
      batchHandler.handle(messages);
      handled.addAndGet(messages.size());
      return Outcome.DONE;
    } catch (IdempotencyKeyReusedException | InvalidIdempotencyKeyException e) {
      if (messages.size() == 1) {
        KafkaMessage message = messages.get(0);
        LOG.log(Level.ERROR, "Skipping " + message.messageId() + " at " + message.record().topic() + "-"
            + message.record().partition() + "@" + message.record().offset() + ": " + e.getMessage());
      }
      return Outcome.REJECTED;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
      return Outcome.RETRY;
    } catch (Exception e) {
      LOG.log(Level.WARNING, "Handling " + messages.size() + " record(s) failed; they come again", e);
      retried.addAndGet(messages.size());
      return Outcome.RETRY;
    }
  }

  private void markDone(TopicPartition partition, ConsumerRecord<byte[], byte[]> record) {
    done.put(partition, new OffsetAndMetadata(record.offset() + 1));
  }

  private boolean seekBack(TopicPartition partition, ConsumerRecord<byte[], byte[]> firstNotDone) {
    consumer.seek(partition, firstNotDone.offset());
    return false;
  }

  private void commitDone() {
    if (!done.isEmpty()) {
      consumer.commitSync(done);
      committed.addAndGet(done.size());
      done.clear();
    }
  }

  /** Commits, on revoke, what was done of the revoked partitions; forgets it when they are lost. */
  private final class Rebalance implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      Map<TopicPartition, OffsetAndMetadata> revoked = new HashMap<>();
      for (TopicPartition partition : partitions) {
        OffsetAndMetadata offset = done.remove(partition);
        if (offset != null) {
          revoked.put(partition, offset);
        }
      }
      if (!revoked.isEmpty()) {
        consumer.commitSync(revoked);
      }
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      // Consumption starts at the group's committed offsets.
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      partitions.forEach(done::remove); // another member owns them now: it gets these records again
    }
  }

  /** @return how many records the handler returned from */
  public long handled() {
    return handled.get();
  }

  /** @return how many offset commits were made (one per partition and commit) */
  public long commits() {
    return committed.get();
  }

  /** @return how many records came again after a failed handler */
  public long retried() {
    return retried.get();
  }

  /** @return how many records were skipped (key reused, invalid key) */
  public long rejected() {
    return rejected.get();
  }

  /** @return whether the loop is still running */
  public boolean isRunning() {
    return running;
  }

  /** @return what stopped the loop (an {@link Error} from the handler, a Kafka error), or null */
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
   * Stops the loop: the records in hand are finished, their offsets committed, and the consumer leaves the group.
   * Interrupted while waiting, it keeps the interrupt status.
   */
  @Override
  public void close() {
    running = false;
    consumer.wakeup();
    if (Thread.currentThread() != worker) {
      try {
        worker.join(TimeUnit.SECONDS.toMillis(30));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Settings of an {@link IdempotentKafkaConsumer}. */
  public static final class Builder {
    private final Map<String, Object> config;
    private final List<String> topics;
    private Duration pollTimeout = Duration.ofMillis(200);
    private Duration retryBackoff = Duration.ofSeconds(1);

    private Builder(Map<String, ?> consumerConfig, Collection<String> topics) {
      Map<String, Object> copy = new HashMap<>(Objects.requireNonNull(consumerConfig, "consumerConfig"));
      for (String required : List.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, ConsumerConfig.GROUP_ID_CONFIG)) {
        if (copy.get(required) == null) {
          throw new IllegalArgumentException("consumerConfig needs " + required);
        }
      }
      Object autoCommit = copy.get(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG);
      if (autoCommit != null && !"false".equalsIgnoreCase(String.valueOf(autoCommit))) {
        throw new IllegalArgumentException("consumerConfig sets " + ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG + "="
            + autoCommit + ", but offsets must be committed only after the handler's commit; remove the setting");
      }
      for (String deserializer : List.of(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
          ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG)) {
        if (copy.containsKey(deserializer)) {
          throw new IllegalArgumentException("consumerConfig must not set " + deserializer
              + ": the consumer reads byte arrays (KafkaMessage.value())");
        }
      }
      copy.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
      copy.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      this.config = copy;
      this.topics = List.copyOf(Objects.requireNonNull(topics, "topics"));
      if (this.topics.isEmpty()) {
        throw new IllegalArgumentException("topics must not be empty");
      }
    }

    /**
     * @param pollTimeout how long one poll waits for records (200 ms by default)
     * @return this builder
     */
    public Builder pollTimeout(Duration pollTimeout) {
      this.pollTimeout = Objects.requireNonNull(pollTimeout, "pollTimeout");
      return this;
    }

    /**
     * @param retryBackoff how long the loop waits after a failed handler before polling the records again (1 s by
     *     default); keep it well under {@code max.poll.interval.ms}
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
     * Starts the loop, one record per handler call.
     *
     * @param handler applies one record
     * @return the running consumer
     */
    public IdempotentKafkaConsumer start(Handler handler) {
      Objects.requireNonNull(handler, "handler");
      return launch(new IdempotentKafkaConsumer(this, messages -> handler.handle(messages.get(0)), false));
    }

    /**
     * Starts the loop, the records of one partition from one poll per handler call ({@code max.poll.records}
     * bounds a batch).
     *
     * @param handler applies a batch in one transaction
     * @return the running consumer
     */
    public IdempotentKafkaConsumer startBatches(BatchHandler handler) {
      return launch(new IdempotentKafkaConsumer(this, Objects.requireNonNull(handler, "handler"), true));
    }

    private static IdempotentKafkaConsumer launch(IdempotentKafkaConsumer consumer) {
      consumer.worker.start();
      return consumer;
    }
  }
}
