package dev.idem.runtime;

import dev.idem.runtime.internal.IdemEngine;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongConsumer;

/**
 * What an operator tool does with idem's table, over a runtime: read one record with all it stores, forget, release
 * or resolve it, purge with progress, count the table. The {@code idem-cli} command line is one such tool; a support
 * tool of your own gets the same operations and the same checks. Every call runs in auto-commit mode on a connection
 * of its own and throws {@link IllegalStateException} inside {@code runtime.inTransaction(...)} or a command's body.
 *
 * <p>A tool usually runs in a process that has not run the application's commands, so {@link #resolve} takes the
 * command as the application's manifest describes it ({@link IdemManifest}) and checks the result against its result
 * shape before anything is stored.
 */
public final class IdemAdmin {

  private final IdemRuntime runtime;
  private final IdemEngine engine;

  private IdemAdmin(IdemRuntime runtime) {
    this.runtime = runtime;
    this.engine = runtime.engine();
  }

  /**
   * The operator calls over a runtime (built like the application's: same data source and table name).
   *
   * @param runtime the runtime
   * @return its operator calls
   */
  public static IdemAdmin of(IdemRuntime runtime) {
    return new IdemAdmin(Objects.requireNonNull(runtime, "runtime"));
  }

  /** @return the runtime these calls use */
  public IdemRuntime runtime() {
    return runtime;
  }

  /**
   * One record with what {@link IdemRuntime#inspect} leaves out.
   *
   * @param record the record as {@link IdemRuntime#inspect} describes it
   * @param fingerprint the SHA-256 of the payload the key was first used with
   * @param resultShape the hash of the result shape the result was stored with (see the manifest); null if none
   * @param storedJson what the result column holds: the result (or {@code null} for a null result), a business
   *     failure's constructor arguments, idem's note for an {@code OUTCOME_UNKNOWN} record; null if nothing
   */
  public record StoredRecord(IdempotencyRecord record, String fingerprint, String resultShape, String storedJson) {}

  /**
   * Reads a record with its fingerprint and stored JSON. Reads only.
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   * @return the record, or empty if there is none
   * @throws IdempotencyStoreException if the read fails
   */
  public Optional<StoredRecord> read(String scope, String key) {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(key, "key");
    return engine.read(scope, key);
  }

  /**
   * Deletes a record whatever its state, as {@link IdemRuntime#forget} does (read its cautions).
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   * @return whether a record was deleted
   * @throws IdempotencyStoreException if the delete fails
   */
  public boolean forget(String scope, String key) {
    return runtime.forget(scope, key);
  }

  /**
   * Deletes a record only if its outcome is unknown: for an operator who checked the external system and found that
   * the first execution's effect did <em>not</em> happen, so that the next call runs the command again. Unlike
   * {@link #forget}, it never deletes a completed record or a claim in progress.
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   * @return whether an {@code OUTCOME_UNKNOWN} record was deleted (false: none, or in another state)
   * @throws IdempotencyStoreException if the delete fails
   */
  public boolean release(String scope, String key) {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(key, "key");
    return engine.release(scope, key);
  }

  /**
   * Completes an {@code OUTCOME_UNKNOWN} record with the result the first execution had, like
   * {@link IdemRuntime#resolve}, after checking the result against the command's result shape from the application's
   * manifest ({@link IdemManifest.Command#checkResult}); the manifest's shape hash is stored with it, as a
   * completion stores it. If this runtime has run the command, its codec must read the result too.
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   * @param resultJson the result as JSON ({@code "null"} for a null result); null for a void command
   * @param command the command of {@code scope} as the application's manifest describes it
   * @return whether an {@code OUTCOME_UNKNOWN} record was completed (false: none, or in another state)
   * @throws IllegalArgumentException if the result does not fit the command's result type (the message names the
   *     property), or the command is not the scope's
   * @throws IdempotencyStoreException if the update fails
   */
  public boolean resolve(String scope, String key, String resultJson, IdemManifest.Command command) {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(command, "command");
    return engine.resolve(scope, key, resultJson, command);
  }

  /**
   * Deletes expired records like {@link IdemRuntime#purgeExpired(int)}, telling {@code afterBatch} how many rows each
   * committed batch deleted.
   *
   * @param batchSize the most rows one statement deletes
   * @param afterBatch called after each batch with the rows it deleted
   * @return the number of deleted records
   * @throws IdempotencyStoreException if a batch fails (batches deleted before stay deleted)
   */
  public long purgeExpired(int batchSize, LongConsumer afterBatch) {
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize must be positive, got " + batchSize);
    }
    return engine.purgeExpired(batchSize, Objects.requireNonNull(afterBatch, "afterBatch"));
  }

  /**
   * Counts the table: records per scope and state, the oldest and newest, the claims whose lease ended, every record
   * whose outcome is unknown. Reads only.
   *
   * @param limit the most keys listed per list ({@link Integer#MAX_VALUE}: all)
   * @return the counts
   * @throws IdempotencyStoreException if a read fails
   */
  public IdempotencyStats stats(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive, got " + limit);
    }
    return engine.stats(limit);
  }

  /**
   * The outbox events no relay publishes any more (the publisher said PARK, or the row could not be read), oldest
   * first. Reads only.
   *
   * @param limit the most events listed
   * @return the parked events with their reasons
   * @throws IdempotencyStoreException if the read fails
   */
  public java.util.List<ParkedOutboxEvent> parkedOutboxEvents(int limit) {
    return engine.parkedOutboxEvents(limit);
  }

  /**
   * Makes a parked outbox event due again, its attempts counted from zero: the next relay round publishes it with
   * the same message id.
   *
   * @param messageId the event's message id
   * @return whether a parked event of that id was requeued (false: none, or not parked)
   * @throws IdempotencyStoreException if the update fails
   */
  public boolean requeueOutboxEvent(String messageId) {
    return engine.requeueOutboxEvent(messageId);
  }

  /**
   * Deletes sent outbox events past their retention ({@link OutboxRelayOptions#withKeepSentFor}), in bounded
   * batches by the expiry index; never a PENDING or PARKED event. Relays do it themselves every
   * {@link OutboxRelayOptions#purgeEvery()}.
   *
   * @param batchSize the most rows one statement deletes
   * @return how many were deleted
   * @throws IdempotencyStoreException if a batch fails (batches deleted before stay deleted)
   */
  public long purgeSentOutboxEvents(int batchSize) {
    return engine.purgeSentOutboxEvents(batchSize);
  }
}
