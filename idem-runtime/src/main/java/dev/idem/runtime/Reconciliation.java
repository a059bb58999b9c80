package dev.idem.runtime;

import java.util.Objects;

/**
 * What a reconciler found out about a parked CLAIM command ({@code OUTCOME_UNKNOWN}): whether its external effect
 * happened. A reconciler is a method of the service interface annotated {@code @Reconciles("command")}, with the
 * command's parameters, returning {@code Reconciliation<R>} where {@code R} is the command's result type
 * ({@code Void} for a void command). idem calls it when a retry meets the parked key, holding the record's row lock
 * so that concurrent retries ask once, and acts on the answer:
 *
 * <ul>
 *   <li>{@link #happened(Object)}: the key is resolved with that result; this retry and every later one replay it;</li>
 *   <li>{@link #didNotHappen()}: the parked record is deleted and this retry runs the command anew;</li>
 *   <li>{@link #stillUnknown(String)}: nothing changes; the retry gets {@link IdempotencyOutcomeUnknownException}.</li>
 * </ul>
 *
 * @param <T> the command's result type
 */
public sealed interface Reconciliation<T>
    permits Reconciliation.Happened, Reconciliation.DidNotHappen, Reconciliation.StillUnknown {

  /**
   * @param result the result the command would have returned, as the external system reports it (null for a void
   *     command)
   * @param <T> the command's result type
   * @return "the effect happened, with this result"
   */
  static <T> Reconciliation<T> happened(T result) {
    return new Happened<>(result);
  }

  /**
   * @param <T> the command's result type
   * @return "the effect surely did not happen": the command may run again
   */
  static <T> Reconciliation<T> didNotHappen() {
    return new DidNotHappen<>();
  }

  /**
   * @param reason why it cannot be told yet (added to the retry's exception)
   * @param <T> the command's result type
   * @return "cannot tell": the key stays parked
   */
  static <T> Reconciliation<T> stillUnknown(String reason) {
    return new StillUnknown<>(reason);
  }

  /**
   * The effect happened.
   *
   * @param result the command's result, recorded and replayed to every retry
   * @param <T> the command's result type
   */
  record Happened<T>(T result) implements Reconciliation<T> {}

  /**
   * The effect did not happen: the parked record is deleted and the command runs again.
   *
   * @param <T> the command's result type
   */
  record DidNotHappen<T>() implements Reconciliation<T> {}

  /**
   * Cannot be told yet: the key stays parked.
   *
   * @param reason why, for the retry's exception
   * @param <T> the command's result type
   */
  record StillUnknown<T>(String reason) implements Reconciliation<T> {
    /**
     * @param reason why, for the retry's exception
     */
    public StillUnknown {
      Objects.requireNonNull(reason, "reason");
    }
  }
}
