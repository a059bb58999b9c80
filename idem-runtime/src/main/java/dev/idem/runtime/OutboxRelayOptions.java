package dev.idem.runtime;

import java.time.Duration;
import java.util.Objects;

/**
 * How an outbox relay runs ({@link IdemRuntime#startOutboxRelay}). Immutable to its users: each {@code with...}
 * returns a copy.
 *
 * <p>Defaults: batches of 100 events, a poll every 200 ms when nothing is due, a claim lease of 30 s, backoff from
 * 1 s doubling up to 5 min, sent events kept 7 days, sent events purged every minute, unordered.
 */
public final class OutboxRelayOptions {

  private int batchSize;
  private Duration pollInterval;
  private Duration claimLease;
  private Duration minBackoff;
  private Duration maxBackoff;
  private Duration keepSentFor;
  private Duration purgeEvery;
  private String name;
  private int orderedPartitions;

  private OutboxRelayOptions(int batchSize, Duration pollInterval, Duration claimLease, Duration minBackoff,
                             Duration maxBackoff, Duration keepSentFor, Duration purgeEvery, String name) {
    this.batchSize = batchSize;
    this.pollInterval = pollInterval;
    this.claimLease = claimLease;
    this.minBackoff = minBackoff;
    this.maxBackoff = maxBackoff;
    this.keepSentFor = keepSentFor;
    this.purgeEvery = purgeEvery;
    this.name = name;
  }

  /** @return the defaults */
  public static OutboxRelayOptions defaults() {
    return new OutboxRelayOptions(100, Duration.ofMillis(200), Duration.ofSeconds(30), Duration.ofSeconds(1),
        Duration.ofMinutes(5), Duration.ofDays(7), Duration.ofMinutes(1), "idem-outbox-relay");
  }

  /**
   * @param size how many events one claim takes at most (and so how many one relay holds in memory): 1 to 10,000
   * @return a copy with it
   */
  public OutboxRelayOptions withBatchSize(int size) {
    if (size < 1 || size > 10_000) {
      throw new IllegalArgumentException("batchSize must be between 1 and 10000, not " + size);
    }
    OutboxRelayOptions copy = copy();
    copy.batchSize = size;
    return copy;
  }

  /**
   * @param interval how long the relay sleeps when no event is due (positive)
   * @return a copy with it
   */
  public OutboxRelayOptions withPollInterval(Duration interval) {
    OutboxRelayOptions copy = copy();
    copy.pollInterval = positive(interval, "pollInterval");
    return copy;
  }

  /**
   * @param lease how long a claim holds its events (database clock): a relay that dies holding them leaves them to
   *     another relay after it; one whose publication takes longer may see them published twice (consumers
   *     deduplicate by message id). Positive
   * @return a copy with it
   */
  public OutboxRelayOptions withClaimLease(Duration lease) {
    OutboxRelayOptions copy = copy();
    copy.claimLease = positive(lease, "claimLease");
    return copy;
  }

  /**
   * @param min the wait after an event's first RETRY, doubled after each further one (positive)
   * @param max the longest wait (at least {@code min})
   * @return a copy with them
   */
  public OutboxRelayOptions withBackoff(Duration min, Duration max) {
    positive(min, "minBackoff");
    positive(max, "maxBackoff");
    if (max.compareTo(min) < 0) {
      throw new IllegalArgumentException("maxBackoff " + max + " is below minBackoff " + min);
    }
    OutboxRelayOptions copy = copy();
    copy.minBackoff = min;
    copy.maxBackoff = max;
    return copy;
  }

  /**
   * @param keep how long a sent event stays in the table after it was marked (then the relay's purge deletes it by
   *     the expiry index); zero or positive
   * @return a copy with it
   */
  public OutboxRelayOptions withKeepSentFor(Duration keep) {
    Objects.requireNonNull(keep, "keepSentFor");
    if (keep.isNegative()) {
      throw new IllegalArgumentException("keepSentFor must not be negative: " + keep);
    }
    OutboxRelayOptions copy = copy();
    copy.keepSentFor = keep;
    return copy;
  }

  /**
   * @param every how often the relay purges sent events past {@link #keepSentFor()}; null: never (purge with
   *     {@link IdemAdmin#purgeSentOutboxEvents} instead)
   * @return a copy with it
   */
  public OutboxRelayOptions withPurgeEvery(Duration every) {
    OutboxRelayOptions copy = copy();
    copy.purgeEvery = every == null ? null : positive(every, "purgeEvery");
    return copy;
  }

  /**
   * @param threadName the relay thread's name, for logs and thread dumps
   * @return a copy with it
   */
  public OutboxRelayOptions withName(String threadName) {
    OutboxRelayOptions copy = copy();
    copy.name = Objects.requireNonNull(threadName, "name");
    return copy;
  }

  /**
   * Per-key ordering: the rows are split into {@code partitions} by the hash of their partition key; each partition
   * is owned by one relay at a time, under a lease whose epoch fences that relay's marks, and the partitions are
   * shared out evenly among the live relays (moving when relays come and go). Within a partition, a row is published
   * only after every earlier row of its key (by message id, which is time-ordered) is sent or parked: a row backing
   * off holds the later rows of its key, never those of other keys.
   *
   * @param partitions how many partitions (1 to 1,024), at least the number of relays you run; 0: unordered (the
   *     default), every relay takes any due row
   * @return a copy with it
   */
  public OutboxRelayOptions withOrderedPartitions(int partitions) {
    if (partitions < 0 || partitions > 1024) {
      throw new IllegalArgumentException("orderedPartitions must be between 0 (unordered) and 1024, not " + partitions);
    }
    OutboxRelayOptions copy = copy();
    copy.orderedPartitions = partitions;
    return copy;
  }

  /** @return the number of key-hash partitions of per-key ordering; 0: unordered */
  public int orderedPartitions() {
    return orderedPartitions;
  }

  private OutboxRelayOptions copy() {
    OutboxRelayOptions copy = new OutboxRelayOptions(batchSize, pollInterval, claimLease, minBackoff, maxBackoff,
        keepSentFor, purgeEvery, name);
    copy.orderedPartitions = orderedPartitions;
    return copy;
  }

  /** @return how many events one claim takes at most */
  public int batchSize() {
    return batchSize;
  }

  /** @return how long the relay sleeps when nothing is due */
  public Duration pollInterval() {
    return pollInterval;
  }

  /** @return how long a claim holds its events */
  public Duration claimLease() {
    return claimLease;
  }

  /** @return the wait after an event's first RETRY */
  public Duration minBackoff() {
    return minBackoff;
  }

  /** @return the longest wait between attempts */
  public Duration maxBackoff() {
    return maxBackoff;
  }

  /** @return how long a sent event stays before the purge deletes it */
  public Duration keepSentFor() {
    return keepSentFor;
  }

  /** @return how often the relay purges sent events, or null for never */
  public Duration purgeEvery() {
    return purgeEvery;
  }

  /** @return the relay thread's name */
  public String name() {
    return name;
  }

  /**
   * The wait before attempt {@code attempts + 1} of an event that failed {@code attempts} times already.
   *
   * @param attempts the failed attempts, this one included (at least 1)
   * @return {@code minBackoff * 2^(attempts - 1)}, at most {@code maxBackoff}
   */
  public Duration backoffAfter(int attempts) {
    int doublings = Math.min(Math.max(attempts - 1, 0), 40);
    long millis = minBackoff.toMillis();
    for (int i = 0; i < doublings && millis < maxBackoff.toMillis(); i++) {
      millis *= 2;
    }
    return Duration.ofMillis(Math.min(millis, maxBackoff.toMillis()));
  }

  private static Duration positive(Duration value, String name) {
    Objects.requireNonNull(value, name);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive: " + value);
    }
    return value;
  }
}
