package dev.idem.runtime;

import java.util.List;

/**
 * A {@code @StateTransition} was called while its entity was in a state it may not start from, e.g. a stale
 * "back to PROCESSING" callback for an order that has shipped. Nothing was changed. Also thrown when the state
 * was right but the caller's {@code @ExpectedVersion} was stale.
 */
public class IllegalStateTransitionException extends IdempotencyException {

  private static final long serialVersionUID = 1L;

  private final String entity;
  private final transient Object id;
  private final String currentState;
  private final List<String> allowedFrom;
  private final String to;

  /**
   * @param entity the JPA entity name
   * @param id the entity's id
   * @param currentState the state the entity is in (null if its column is NULL)
   * @param allowedFrom the states the transition may start from
   * @param to the target state
   * @param message what went wrong
   */
  public IllegalStateTransitionException(String entity, Object id, String currentState, List<String> allowedFrom,
                                         String to, String message) {
    super(message);
    this.entity = entity;
    this.id = id;
    this.currentState = currentState;
    this.allowedFrom = List.copyOf(allowedFrom);
    this.to = to;
  }

  /** @return the JPA entity name, e.g. {@code Order} */
  public String entity() {
    return entity;
  }

  /** @return the entity's id as passed to the transition */
  public Object id() {
    return id;
  }

  /** @return the state the entity was found in, or null if its state column is NULL */
  public String currentState() {
    return currentState;
  }

  /** @return the states the transition may start from */
  public List<String> allowedFrom() {
    return allowedFrom;
  }

  /** @return the state the transition leads to */
  public String to() {
    return to;
  }
}
