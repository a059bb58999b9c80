package dev.idem.runtime;

import java.time.Duration;
import java.util.Objects;

/**
 * Where the records of {@code @IdempotentCommand(store = Store.REDIS)} commands live instead of the database: a
 * shared store with atomic conditional writes and expiry on its own clock ({@code idem-redis}'s
 * {@code RedisRecordStore}). Chosen with {@link IdemRuntime.Builder#recordStore}; a runtime without one refuses such
 * commands on their first call.
 *
 * <p>The runtime calls a store at exactly these points, for one command call:
 * <ol>
 *   <li>{@link #claim} before the body runs: atomically, either the key's completed outcome, or another caller's
 *       claim, or a new claim of this caller's (holding {@code token}) that expires after the command's lease by the
 *       store's clock;</li>
 *   <li>after the body: {@link #complete} with its outcome (a result or a replayed business failure), or
 *       {@link #release} when it threw anything else; both are compare-and-set on {@code token}, so that a caller
 *       whose claim expired (and was taken by another) never overwrites nor removes the other's.</li>
 * </ol>
 *
 * <p>Unlike a {@link FrontTier}, a store is the authority for its commands: a failure must be thrown (the runtime
 * then refuses to run the body, or reports that its outcome could not be recorded), never answered as "absent".
 * Implementations must be thread-safe.
 */
public interface RecordStore {

  /**
   * In one atomic step: the key's completed outcome if the store holds one, else another caller's live claim, else a
   * new claim of this caller's that expires after {@code lease} by the store's clock.
   *
   * @param scope the command's scope
   * @param key the composed key
   * @param token this caller's owner token
   * @param fingerprint the payload's fingerprint, kept with the claim so that a different payload is told apart
   * @param lease how long the claim holds if its owner never completes nor releases it
   * @return what the store holds
   * @throws RuntimeException if the store cannot be asked (unreachable, timed out): the body must not run
   */
  Claim claim(String scope, String key, String token, String fingerprint, Duration lease);

  /**
   * Replaces this caller's claim with the outcome for {@code timeToLive}, only if the key still holds the claim of
   * {@code token}.
   *
   * @param scope the command's scope
   * @param key the composed key
   * @param token the token given to {@link #claim}
   * @param outcome the outcome
   * @param timeToLive positive; how long the outcome is replayed (the command's retention)
   * @return true if stored; false if the key no longer holds this caller's claim (it expired)
   * @throws RuntimeException if the store cannot be asked: whether the outcome was stored is unknown
   */
  boolean complete(String scope, String key, String token, FrontTier.Completed outcome, Duration timeToLive);

  /**
   * Removes this caller's claim, only if the key still holds the claim of {@code token}.
   *
   * @param scope the command's scope
   * @param key the composed key
   * @param token the token given to {@link #claim}
   * @return true if removed; false if the key no longer holds this caller's claim
   * @throws RuntimeException if the store cannot be asked: the claim then holds until it expires
   */
  boolean release(String scope, String key, String token);

  /** What {@link #claim} found. */
  enum Found {
    /** The key's completed outcome ({@link Claim#outcome()}). */
    COMPLETED,
    /** Another caller's live claim ({@link Claim#fingerprint()}, {@link Claim#remaining()}). */
    IN_FLIGHT,
    /** Nothing: the key is now claimed by this caller. */
    CLAIMED
  }

  /**
   * The answer of {@link #claim}.
   *
   * @param found what was found
   * @param outcome the completed outcome, for {@link Found#COMPLETED}
   * @param fingerprint the other caller's payload fingerprint, for {@link Found#IN_FLIGHT}
   * @param remaining how long the other caller's claim still holds, for {@link Found#IN_FLIGHT}
   */
  record Claim(Found found, FrontTier.Completed outcome, String fingerprint, Duration remaining) {

    private static final Claim CLAIMED = new Claim(Found.CLAIMED, null, null, null);

    /**
     * Checks that each kind carries what it needs.
     *
     * @param found what was found
     * @param outcome the completed outcome, for {@link Found#COMPLETED}
     * @param fingerprint the other caller's payload fingerprint, for {@link Found#IN_FLIGHT}
     * @param remaining how long the other caller's claim still holds, for {@link Found#IN_FLIGHT}
     */
    public Claim {
      Objects.requireNonNull(found, "found");
      if (found == Found.COMPLETED) {
        Objects.requireNonNull(outcome, "outcome");
      }
      if (found == Found.IN_FLIGHT) {
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(remaining, "remaining");
      }
    }

    /**
     * The key's completed outcome.
     *
     * @param outcome the outcome
     * @return a completed answer
     */
    public static Claim completed(FrontTier.Completed outcome) {
      return new Claim(Found.COMPLETED, outcome, null, null);
    }

    /**
     * Another caller's live claim.
     *
     * @param fingerprint its payload's fingerprint
     * @param remaining how long it still holds
     * @return an in-flight answer
     */
    public static Claim inFlight(String fingerprint, Duration remaining) {
      return new Claim(Found.IN_FLIGHT, null, fingerprint, remaining);
    }

    /**
     * The key is now claimed by this caller.
     *
     * @return a claimed answer
     */
    public static Claim claimed() {
      return CLAIMED;
    }
  }
}
