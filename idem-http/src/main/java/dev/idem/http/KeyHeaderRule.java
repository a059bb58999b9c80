package dev.idem.http;

/** The rules an {@code Idempotency-Key} header field can break; each is answered with 400 naming it. */
public enum KeyHeaderRule {
  /** The operation requires the header and the request has none. */
  MISSING,
  /** The request carries several values (several field lines, or a comma-separated list); the field is one Item. */
  MULTIPLE_VALUES,
  /** A value starting with a double quote is not an RFC 8941 sf-string (unterminated, a bad escape, a character
   *  outside printable ASCII, or something after the closing quote). */
  MALFORMED_STRING,
  /** The key is empty. */
  EMPTY,
  /** The key is longer than the endpoint's maximum. */
  TOO_LONG,
  /** The key contains a character idem keys do not allow (letters, digits and {@code -_.:@/+=~} are allowed). */
  ILLEGAL_CHARACTER
}
