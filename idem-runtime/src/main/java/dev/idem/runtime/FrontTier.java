package dev.idem.runtime;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A shared, fast store in front of the database (Redis, in {@code idem-redis}) that answers duplicate calls without a
 * database connection. The database's {@code idem_record} stays the authority: the tier is a hint in both directions.
 * A miss, a failure or an unreachable tier sends the call to the database, which decides; an in-flight mark only
 * turns a duplicate away early (never lets one run); a completed outcome is published only after its record
 * committed, so a replay from the tier is one the database would give too.
 *
 * <p>The runtime calls a tier at exactly these points (chosen with {@link IdemRuntime.Builder#frontTier}):
 * <ol>
 *   <li>{@link #lookupOrMark} before a command claims its key in the database: the tier answers with the key's
 *       completed outcome, or tells that another caller has it in flight, or marks it in flight for this caller;</li>
 *   <li>{@link #publish} after a completed record committed (written, or read by a retry that reached the
 *       database), so that retries on any node replay it;</li>
 *   <li>{@link #unmark} when this caller's in-flight mark was not replaced by a published outcome (the body failed,
 *       the claim found the key taken, or the outcome waits for the application's commit), also after a lookup the
 *       tier could not answer (a lookup that timed out may have marked the key all the same);</li>
 *   <li>{@link #forget} when an operator deleted or resolved a record ({@link IdemAdmin});</li>
 *   <li>for consumer batches ({@code executeBatch}): {@link #lookupCompleted} before the batch claims its keys in
 *       the database (keys the tier knows as consumed, with the same fingerprint, are skipped without the
 *       database; any other key goes to the database, which decides), and {@link #publishAll} after the batch's
 *       claims committed.</li>
 * </ol>
 *
 * <p>Implementations must be thread-safe and must never throw: a failure is {@link Lookup#unavailable()} or a
 * write left undone. They should answer quickly (short timeouts) and stop asking a store that keeps failing.
 */
public interface FrontTier {

  /** No tier: every call goes to the database (the default). */
  FrontTier NONE = new FrontTier() {
    @Override
    public Lookup lookupOrMark(String scope, String key, String token, Duration inFlightFor) {
      return Lookup.unavailable();
    }

    @Override
    public boolean publish(String scope, String key, Completed outcome, Duration timeToLive) {
      return false;
    }

    @Override
    public void unmark(String scope, String key, String token) {}

    @Override
    public void forget(String scope, String key) {}

    @Override
    public String toString() {
      return "FrontTier.NONE";
    }
  };

  /**
   * In one step: the key's completed outcome if the tier holds one, else another caller's in-flight mark, else a new
   * mark of this caller's (holding {@code token}) that expires after {@code inFlightFor} by the tier's own clock.
   *
   * @param scope the command's scope
   * @param key the composed key
   * @param token this caller's token, for {@link #unmark}
   * @param inFlightFor how long a mark holds if its owner never replaces or removes it
   * @return what the tier knows; {@link Lookup#unavailable()} on any failure
   */
  Lookup lookupOrMark(String scope, String key, String token, Duration inFlightFor);

  /**
   * Stores a committed completed outcome (replacing an in-flight mark) for {@code timeToLive}, after which the record
   * may expire in the database. Idempotent: the same key's outcome never changes before it expires. May decline
   * (too large, tier unavailable).
   *
   * @param scope the command's scope
   * @param key the composed key
   * @param outcome the committed outcome
   * @param timeToLive positive; the time left before the record's expiry by the database's clock
   * @return whether the tier stored it (replacing any mark of the key); false if it declined or failed, and then
   *     the runtime removes its own mark with {@link #unmark}
   */
  boolean publish(String scope, String key, Completed outcome, Duration timeToLive);

  /**
   * Removes this caller's in-flight mark if it still holds {@code token} (compare-and-delete), never anything else.
   *
   * @param scope the command's scope
   * @param key the composed key
   * @param token the token given to {@link #lookupOrMark}
   */
  void unmark(String scope, String key, String token);

  /**
   * Removes whatever the tier holds for the key (an operator released, resolved or forgot its record).
   *
   * @param scope the command's scope
   * @param key the composed key
   */
  void forget(String scope, String key);

  /**
   * In one pipelined exchange, the completed outcomes the tier holds for {@code keys} (a consumer batch). Only an
   * outcome published after its commit may be returned; a key the tier does not hold, cannot read, or chose not to
   * ask for (a prefilter that says "definitely absent") is null, and the database decides it. The default holds
   * nothing.
   *
   * @param scope the batch command's scope
   * @param keys the composed keys
   * @return a list parallel to {@code keys}: the outcome, or null
   */
  default List<Completed> lookupCompleted(String scope, List<String> keys) {
    return Collections.nCopies(keys.size(), null);
  }

  /**
   * Stores the committed outcomes of a consumer batch's keys, pipelined where the tier can. The default publishes
   * them one by one.
   *
   * @param scope the batch command's scope
   * @param outcomes the committed outcome of each composed key
   * @param timeToLive positive; the time left before the records' expiry by the database's clock
   */
  default void publishAll(String scope, Map<String, Completed> outcomes, Duration timeToLive) {
    outcomes.forEach((key, outcome) -> publish(scope, key, outcome, timeToLive));
  }

  /**
   * A committed completed outcome as the database holds it.
   *
   * @param fingerprint the payload's fingerprint
   * @param result the result as JSON (or a stored failure's arguments); null for void
   * @param errorType a stored business failure's class name, or null for a result
   * @param resultShape the result shape the record was written with, or null
   * @param expiresAt epoch millis (database time) after which the key may run anew
   * @param createdAt epoch millis (database time) when the key was first claimed
   */
  record Completed(String fingerprint, String result, String errorType, String resultShape, long expiresAt,
                   long createdAt) {
    /**
     * Checks the fingerprint.
     *
     * @param fingerprint the payload's fingerprint
     * @param result the result as JSON, or null
     * @param errorType a stored business failure's class name, or null
     * @param resultShape the result shape, or null
     * @param expiresAt epoch millis (database time) after which the key may run anew
     * @param createdAt epoch millis (database time) when the key was first claimed
     */
    public Completed {
      Objects.requireNonNull(fingerprint, "fingerprint");
    }
  }

  /** What {@link #lookupOrMark} found. */
  enum Found {
    /** The key's completed outcome ({@link Lookup#outcome()}). */
    COMPLETED,
    /** Another caller's in-flight mark ({@link Lookup#inFlightFor()} left). */
    IN_FLIGHT,
    /** Nothing: the key is now marked in flight for this caller. */
    MARKED,
    /** The tier could not answer (unreachable, slow, circuit open, an entry it could not read): ask the database. */
    UNAVAILABLE
  }

  /**
   * The answer of {@link #lookupOrMark}.
   *
   * @param found what was found
   * @param outcome the completed outcome, for {@link Found#COMPLETED}
   * @param inFlightFor how long the other caller's mark still holds, for {@link Found#IN_FLIGHT}
   */
  record Lookup(Found found, Completed outcome, Duration inFlightFor) {

    private static final Lookup UNAVAILABLE = new Lookup(Found.UNAVAILABLE, null, null);
    private static final Lookup MARKED = new Lookup(Found.MARKED, null, null);

    /**
     * Checks that each kind carries what it needs.
     *
     * @param found what was found
     * @param outcome the completed outcome, for {@link Found#COMPLETED}
     * @param inFlightFor how long the other caller's mark still holds, for {@link Found#IN_FLIGHT}
     */
    public Lookup {
      Objects.requireNonNull(found, "found");
      if (found == Found.COMPLETED) {
        Objects.requireNonNull(outcome, "outcome");
      }
      if (found == Found.IN_FLIGHT) {
        Objects.requireNonNull(inFlightFor, "inFlightFor");
      }
    }

    /**
     * A completed outcome found.
     *
     * @param outcome the key's completed outcome
     * @return a completed lookup
     */
    public static Lookup completed(Completed outcome) {
      return new Lookup(Found.COMPLETED, outcome, null);
    }

    /**
     * Another caller's mark found.
     *
     * @param remaining how long the other caller's mark still holds
     * @return an in-flight lookup
     */
    public static Lookup inFlight(Duration remaining) {
      return new Lookup(Found.IN_FLIGHT, null, remaining);
    }

    /**
     * Nothing found; the key is marked for this caller.
     *
     * @return a lookup that marked the key for this caller
     */
    public static Lookup marked() {
      return MARKED;
    }

    /**
     * The tier could not answer.
     *
     * @return a lookup the tier could not answer
     */
    public static Lookup unavailable() {
      return UNAVAILABLE;
    }
  }
}
