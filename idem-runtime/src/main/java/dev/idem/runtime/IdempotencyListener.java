package dev.idem.runtime;

/**
 * Observes what idem decides, e.g. for metrics or logs. All methods default to doing nothing;
 * implementations must be thread-safe and fast. Exceptions they throw are logged and ignored.
 */
public interface IdempotencyListener {

  /** A listener that ignores everything. */
  IdempotencyListener NO_OP = new IdempotencyListener() {};

  /**
   * The key was claimed: the command's body is about to run.
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   */
  default void claimed(String scope, String key) {}

  /**
   * The body ran and its transaction (with the record) committed.
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   */
  default void completed(String scope, String key) {}

  /**
   * A stored result was returned instead of running the body again.
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   */
  default void replayed(String scope, String key) {}

  /**
   * The key was used before with a different payload; the call was rejected.
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   */
  default void keyReused(String scope, String key) {}

  /**
   * A key was rejected before touching the database.
   *
   * @param scope the command's scope
   * @param rule the name of the broken {@link InvalidIdempotencyKeyException.KeyRule}
   */
  default void invalidKey(String scope, String rule) {}

  /**
   * ({@code CLAIM} mode) Another caller holds an unexpired lease on the key; this call failed with
   * {@link IdempotencyInProgressException} (at once, or after waiting in vain).
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   */
  default void inFlightRejected(String scope, String key) {}

  /**
   * The front tier ({@link IdemRuntime.Builder#frontTier}) answered a call with the key's completed outcome: replayed
   * without a database connection.
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   */
  default void frontTierHit(String scope, String key) {}

  /**
   * The front tier held nothing for the key (it is now marked in flight for this call); the database decides.
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   */
  default void frontTierMiss(String scope, String key) {}

  /**
   * The front tier could not answer (unreachable, slow, its circuit open, an expired or unreadable entry): the call
   * fell back to the database.
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   */
  default void frontTierFallback(String scope, String key) {}

  /**
   * A front tier's own command finished (reported by the tier, e.g. {@code idem-redis}'s, when given this listener).
   *
   * @param operation what the tier did: {@code lookup}, {@code publish}, {@code unmark}, {@code forget}
   * @param failure what failed (a timeout, a lost connection), or null
   * @param elapsedNanos how long the command took
   */
  default void frontTierCommand(String operation, Throwable failure, long elapsedNanos) {}

  /**
   * A front tier's circuit breaker opened (the tier is no longer asked; calls go to the database) or closed again (a
   * probe succeeded).
   *
   * @param open whether the circuit is now open
   */
  default void frontTierCircuit(boolean open) {}

  /**
   * A front tier's prefilter (e.g. {@code idem-redis}'s rotating Bloom filter for consumer batches) found keys
   * definitely absent from what the tier published recently, so the tier was not asked for them: the database
   * decided them.
   *
   * @param scope the batch command's scope
   * @param keys how many keys of the batch were not looked up in the tier
   */
  default void frontTierBloomSkipped(String scope, int keys) {}

  /**
   * ({@code CLAIM} mode) This caller took over a key whose previous owner's lease had ended, or whose record had
   * expired; {@link #claimed} follows.
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   */
  default void takenOver(String scope, String key) {}

  /**
   * ({@code CLAIM} mode) The body threw an exception that is not a business outcome; the claim was released so that
   * a retry runs again.
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   */
  default void released(String scope, String key) {}

  /**
   * ({@code CLAIM} mode) This caller's lease was taken over before it completed; its outcome was discarded.
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   */
  default void leaseLost(String scope, String key) {}

  /**
   * ({@code CLAIM} mode) An operator must look at this key: its body returned (its effects outside the database
   * happened) but its outcome could not be recorded; the record is kept as {@code OUTCOME_UNKNOWN} (or, if even that
   * failed, the claim holds until its lease ends). Called once, when it happens; retries then get
   * {@link IdempotencyOutcomeUnknownException}. See {@link IdemRuntime#inspect}, {@link IdemRuntime#resolve},
   * {@link IdemRuntime#forget}.
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   */
  default void outcomeUnknown(String scope, String key) {}

  /**
   * An operator must look at this key: a call met a record that can be neither replayed nor run again (it threw
   * {@link IdempotencyBrokenRecordException}). Called for every call that meets it.
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   */
  default void brokenRecord(String scope, String key) {}

  /**
   * A command call returned or threw: a first execution or a replay ({@code failure} null), a rejection (an
   * {@link IdempotencyException} subclass such as {@link IdempotencyKeyReusedException}), or the body's own
   * exception. Called once per call, after every other callback of that call, on the caller's thread; for a
   * latency timer. Keep it cheap: it runs on every call.
   *
   * @param scope the command's scope
   * @param failure what the call threw, or null if it returned
   * @param elapsedNanos the time from the call's entry to its return, in nanoseconds
   */
  default void commandFinished(String scope, Throwable failure, long elapsedNanos) {}

  /**
   * A run of the scheduled purge ({@link IdemRuntime.Builder#purgeEvery}) finished, on the purge's own thread.
   *
   * @param tableName the records' table
   * @param deleted how many expired records this run deleted (on a cluster, the other nodes' runs count their own)
   */
  default void purged(String tableName, long deleted) {}

  /**
   * A run of the scheduled purge failed; the next run comes after the usual interval. Also logged (WARNING).
   *
   * @param tableName the records' table
   * @param failure what failed; batches deleted before it stay deleted
   */
  default void purgeFailed(String tableName, Throwable failure) {}

  /**
   * A day partition of a {@link RecordLayout#DAY_PARTITIONS} table was created ahead of time (by this node; another
   * node's maintenance reports its own).
   *
   * @param tableName the records' table
   * @param partition the partition's table name
   */
  default void partitionCreated(String tableName, String partition) {}

  /**
   * A day partition whose every record was past its archive horizon was detached and dropped.
   *
   * @param tableName the records' table
   * @param partition the partition's table name
   * @param records about how many records it held: the database's estimate from its statistics (PostgreSQL: the
   *     larger of {@code pg_stat_user_tables.n_live_tup} and {@code pg_class.reltuples}; MariaDB: InnoDB's
   *     {@code information_schema.PARTITIONS.TABLE_ROWS}), read instead of counting, which would read the whole day
   */
  default void partitionDropped(String tableName, String partition, long records) {}

  /**
   * A day partition whose every record was past its archive horizon was detached and moved to the archive schema
   * ({@link IdemRuntime.Builder#archivePartitionsTo}) instead of dropped.
   *
   * @param tableName the records' table
   * @param partition the partition's table name, now in the archive schema
   * @param records about how many records it held, estimated from the database's statistics as for
   *     {@link #partitionDropped}
   */
  default void partitionArchived(String tableName, String partition, long records) {}

  /**
   * Partition maintenance (creating days ahead, dropping or archiving past ones) failed; it runs again with the
   * next purge. Also logged (WARNING).
   *
   * @param tableName the records' table
   * @param failure what failed; partitions created, dropped or archived before it stay so
   */
  default void partitionMaintenanceFailed(String tableName, Throwable failure) {}

  /**
   * A single-flight body's lease was lost while it ran (a renewal was refused, or none succeeded before the lease
   * would end): its thread has just been interrupted, and its call will throw
   * {@link SingleFlightLockLostException}.
   *
   * @param lockName the lock's name
   * @param fencingToken the lost lease's fencing token
   */
  default void lockLost(String lockName, long fencingToken) {}

  /**
   * An outbox relay marked an event sent after its publisher confirmed it.
   *
   * @param destination the event's destination
   * @param lagMillis from the event's write to the claim that published it, by the database's clock: how far the
   *     relay runs behind
   */
  default void outboxSent(String destination, long lagMillis) {}

  /**
   * An outbox event's publication ended in RETRY: it is due again after its backoff.
   *
   * @param destination the event's destination
   * @param reason the publisher's reason
   */
  default void outboxRetried(String destination, String reason) {}

  /**
   * An outbox event was parked (the publisher's PARK, or a row that could not be read): no relay publishes it until
   * an operator requeues it ({@link IdemAdmin#requeueOutboxEvent}).
   *
   * @param destination the event's destination
   * @param reason why
   */
  default void outboxParked(String destination, String reason) {}

  /**
   * An outbox relay published events whose claim had ended and been taken by another relay before it could mark
   * them: they are published again by that relay (at least once; consumers deduplicate by message id).
   *
   * @param events how many of the batch's marks found their claim gone
   */
  default void outboxClaimLost(int events) {}

  /**
   * A round of an outbox relay failed (the database unreachable, a publisher that threw): it tries again after its
   * poll interval. Also logged (WARNING).
   *
   * @param failure what failed
   */
  default void outboxRelayFailed(Throwable failure) {}
}
