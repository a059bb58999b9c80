package dev.idem;

/**
 * Whether a command's keys carry the time they were made, and in which format; see
 * {@link IdempotentCommand#keyTime()}.
 */
public enum KeyTime {

  /** The keys are arbitrary: no time is read from them. */
  NONE,

  /**
   * The key's first part is a UUID version 7 (RFC 9562): its first 48 bits are the Unix time in milliseconds. A
   * {@code String} in the canonical 36-character form, or a {@code java.util.UUID}.
   */
  UUID_V7,

  /**
   * The key's first part is a ULID: 26 characters of Crockford base 32 whose first 10 are the Unix time in
   * milliseconds. A {@code String}.
   */
  ULID
}
