package dev.idem.runtime;

/**
 * A {@code @StateTransition} was called with an id that has no row. Named apart from JPA's own
 * {@code EntityNotFoundException}, so that code using both needs no qualified names.
 */
public class NoSuchEntityException extends IdempotencyException {

  private static final long serialVersionUID = 1L;

  private final String entity;
  private final transient Object id;

  /**
   * @param entity the JPA entity name
   * @param id the id that was not found
   * @param message what went wrong
   */
  public NoSuchEntityException(String entity, Object id, String message) {
    super(message);
    this.entity = entity;
    this.id = id;
  }

  /** @return the JPA entity name, e.g. {@code Order} */
  public String entity() {
    return entity;
  }

  /** @return the id that was not found */
  public Object id() {
    return id;
  }
}
