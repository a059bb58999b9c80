package dev.idem.runtime;

/**
 * A stored result cannot be replayed as what the command returns now: it was written with another result shape
 * (the result type changed between deploys: a renamed field, a new component, another type), or its JSON does not
 * read as the result type (a property the type no longer has, a constructor property missing, a subtype not
 * permitted). Nothing ran and nothing changed; idem never replays a defaulted object in its place. Let the record
 * expire, delete it, or restore the result type it was written with.
 */
public class IdempotencyResultShapeException extends IdempotencyException {

  private static final long serialVersionUID = 1L;

  private final String scope;
  private final String key;

  /**
   * @param scope the command's scope
   * @param key the composed idempotency key
   * @param problem what does not match, e.g. the stored and the expected shape
   */
  public IdempotencyResultShapeException(String scope, String key, String problem) {
    this(scope, key, problem, null);
  }

  /**
   * @param scope the command's scope
   * @param key the composed idempotency key
   * @param problem what does not match, e.g. the stored and the expected shape
   * @param cause the codec's failure, or null
   */
  public IdempotencyResultShapeException(String scope, String key, String problem, Throwable cause) {
    super("The stored result of " + scope + " key '" + key + "' cannot be replayed: " + problem
        + ". Nothing ran; let the record expire, delete it, or restore the result type it was written with", cause);
    this.scope = scope;
    this.key = key;
  }

  /** @return the command's scope */
  public String scope() {
    return scope;
  }

  /** @return the composed idempotency key */
  public String key() {
    return key;
  }
}
