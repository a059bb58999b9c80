package dev.idem.runtime;

import java.util.Objects;

/**
 * An idempotency key was rejected before any database access. The message names the key part and
 * the broken rule.
 */
public class InvalidIdempotencyKeyException extends IdempotencyException {

  private static final long serialVersionUID = 1L;

  /** The rules a key can break. */
  public enum KeyRule {
    /** A key part was {@code null}. */
    NULL_PART,
    /** A key part was the empty string. */
    EMPTY_PART,
    /** The composed key is longer than the runtime's maximum key length. */
    TOO_LONG,
    /** A key part contains a character that is not allowed. */
    ILLEGAL_CHARACTER,
    /** A command whose keys carry their time ({@code keyTime}) got a first key part that is no id of that format. */
    KEY_TIME_UNREADABLE,
    /**
     * A key's embedded time lies before its command's dedup window or more than a day ahead: no retry of a key made
     * then can be told from a new key.
     */
    KEY_TIME_IMPLAUSIBLE
  }

  private final String scope;
  private final KeyRule rule;

  /**
   * @param scope the command's scope
   * @param rule the broken rule
   * @param message a message naming the key part and the rule
   */
  public InvalidIdempotencyKeyException(String scope, KeyRule rule, String message) {
    super(message);
    this.scope = scope;
    this.rule = Objects.requireNonNull(rule, "rule");
  }

  /** @return the scope of the command whose key was rejected */
  public String scope() {
    return scope;
  }

  /** @return the broken rule */
  public KeyRule rule() {
    return rule;
  }
}
