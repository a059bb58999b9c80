package dev.idem.runtime;

/**
 * Observes every state transition, e.g. to count repeats or to raise an alarm on illegal transitions, which mean
 * that a caller's view of an entity is out of date. Separate from {@link IdempotencyListener}, which observes
 * commands: the two happen for different reasons and are usually wired to different alerts. Set it with
 * {@link IdemRuntime.Builder#transitionListener(TransitionListener)}.
 *
 * <p>All methods default to doing nothing; implementations must be thread-safe and fast. Exceptions they throw are
 * logged and ignored.
 */
public interface TransitionListener {

  /** A listener that ignores everything. */
  TransitionListener NO_OP = new TransitionListener() {};

  /**
   * The transition was applied and its transaction committed. Called after the commit, so a transition rolled
   * back with an outer transaction is never reported as applied.
   *
   * @param transition the transition, e.g. {@code OrderFlow.pay}
   * @param entity the JPA entity name
   * @param id the entity's id
   * @param from the state it left (null where several states lead to the target and the transition is not
   *     logged, so the state left was not read)
   * @param to the state it entered
   */
  default void applied(String transition, String entity, Object id, String from, String to) {}

  /**
   * The entity already was in the target state, or a later one the transition accepts: a repeat, without effect.
   *
   * @param transition the transition
   * @param entity the JPA entity name
   * @param id the entity's id
   * @param current the state the entity is in
   */
  default void alreadyApplied(String transition, String entity, Object id, String current) {}

  /**
   * The transition was rejected: the entity is in a state the transition may not start from (or the expected
   * version was stale), or it does not exist ({@code current} is then null). An
   * {@link IllegalStateTransitionException} or a {@link NoSuchEntityException} follows.
   *
   * @param transition the transition
   * @param entity the JPA entity name
   * @param id the entity's id
   * @param current the state the entity is in, null if there is no such entity
   * @param reason the exception's message
   */
  default void rejected(String transition, String entity, Object id, String current, String reason) {}
}
