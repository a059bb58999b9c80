package dev.idem.runtime;

/**
 * The idempotency key was first used with a different payload. Nothing ran and nothing changed: a
 * retry must send the same payload, a new request must use a new key.
 */
public class IdempotencyKeyReusedException extends IdempotencyException {

  private static final long serialVersionUID = 1L;

  private final String scope;
  private final String key;

  /**
   * @param scope the command's scope
   * @param key the composed idempotency key
   */
  public IdempotencyKeyReusedException(String scope, String key) {
    super("Idempotency key '" + key + "' of " + scope
        + " was first used with a different payload; a retry must send the same payload, "
        + "a new request must use a new key");
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
