package dev.idem.runtime;

import java.time.Instant;

/**
 * One record of idem's table as {@link IdemRuntime#inspect} reads it, for operators deciding what to do with a key
 * whose outcome is unknown, a broken record or a stuck claim. Times are the database's (epoch millis as stored).
 *
 * @param scope the command's scope
 * @param key the composed idempotency key
 * @param state the record's state
 * @param ownerToken {@code CLAIM} mode: the token of the caller that holds (or held, for {@code OUTCOME_UNKNOWN})
 *     the claim; null otherwise
 * @param leaseUntil {@code CLAIM} mode: when the in-progress claim's lease ends; null otherwise
 * @param createdAt when the key was first claimed
 * @param expiresAt when the record's retention ends: then the key may run again and the record be purged
 * @param storedOutcome what the record holds
 * @param failureType the class of a stored business failure ({@code replayOn}); null otherwise
 * @param resultSize the length of the stored JSON (result or failure arguments), in characters; 0 if none, and 0
 *     for {@code OUTCOME_UNKNOWN}, whose column holds idem's note instead of a result (its text is {@code problem})
 * @param problem {@code OUTCOME_UNKNOWN}: what failed when its outcome was to be recorded (idem's note in the record);
 *     null otherwise
 */
public record IdempotencyRecord(String scope, String key, State state, String ownerToken, Instant leaseUntil,
                                Instant createdAt, Instant expiresAt, StoredOutcome storedOutcome,
                                String failureType, int resultSize, String problem) {

  /** A record's state. */
  public enum State {
    /** A transactional command's claim, completed in its own transaction; committed only if the body ended it early. */
    PENDING,
    /** A {@code CLAIM} command's body is running (or its caller died: then its lease ends, and it is taken over). */
    IN_PROGRESS,
    /** The outcome is stored and replayed to every retry. */
    COMPLETED,
    /**
     * A {@code CLAIM} command's body returned but its outcome could not be recorded; retries get
     * {@link IdempotencyOutcomeUnknownException} until {@link IdemRuntime#resolve} or {@link IdemRuntime#forget}, or
     * until it expires.
     */
    OUTCOME_UNKNOWN,
    /** A state this runtime does not know (written by a newer version, or by hand). */
    UNRECOGNIZED
  }

  /** What a record holds. */
  public enum StoredOutcome {
    /** A result (JSON; {@code null} for a null result). */
    RESULT,
    /** A business failure's constructor arguments ({@link #failureType()} names it). */
    BUSINESS_FAILURE,
    /** Nothing: in progress, pending, unknown, or a void command's completion. */
    NONE
  }
}
