package dev.idem.http;

import java.util.Objects;

/** An {@code Idempotency-Key} header field was missing or malformed; {@link #rule()} says which rule it broke. */
public final class InvalidKeyHeaderException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** The rule the header broke. */
  private final KeyHeaderRule rule;

  /**
   * @param rule the broken rule
   * @param message a sentence naming the rule and how to comply
   */
  public InvalidKeyHeaderException(KeyHeaderRule rule, String message) {
    super(message);
    this.rule = Objects.requireNonNull(rule, "rule");
  }

  /** @return the broken rule */
  public KeyHeaderRule rule() {
    return rule;
  }
}
