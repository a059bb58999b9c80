package dev.idem.runtime.internal;

import dev.idem.runtime.InvalidIdempotencyKeyException;
import dev.idem.runtime.InvalidIdempotencyKeyException.KeyRule;
import java.math.BigInteger;
import java.util.List;
import java.util.UUID;

/**
 * Turns key parts into one validated key string before any database access. Parts are joined with
 * {@code |}, which is never an allowed character, so different part lists never compose to the same
 * key. Validation is a table lookup per character and allocates nothing for single-part keys.
 */
final class KeyComposer {

  static final char SEPARATOR = '|';
  static final String DEFAULT_PUNCTUATION = "-_.:@/+=~";
  static final int DEFAULT_MAX_LENGTH = 128;
  /** The width of the {@code idem_key} column. */
  static final int MAX_MAX_LENGTH = 255;

  private final boolean[] allowed = new boolean[128];
  private final String allowedDescription;
  private final int maxLength;

  KeyComposer(int maxLength, String punctuation) {
    if (maxLength < 1 || maxLength > MAX_MAX_LENGTH) {
      throw new IllegalArgumentException(
          "maxKeyLength must be between 1 and " + MAX_MAX_LENGTH + ", got " + maxLength);
    }
    for (char c = 'a'; c <= 'z'; c++) {
      allowed[c] = true;
      allowed[Character.toUpperCase(c)] = true;
    }
    for (char c = '0'; c <= '9'; c++) {
      allowed[c] = true;
    }
    for (int i = 0; i < punctuation.length(); i++) {
      char c = punctuation.charAt(i);
      if (c == SEPARATOR) {
        throw new IllegalArgumentException(
            "'|' cannot be an allowed key character: it separates the parts of composite keys");
      }
      if (c <= ' ' || c >= 127 || Character.isLetterOrDigit(c)) {
        throw new IllegalArgumentException(
            "allowedKeyPunctuation may contain only visible ASCII punctuation, got '" + c + "'");
      }
      allowed[c] = true;
    }
    this.allowedDescription = punctuation.isEmpty()
        ? "letters and digits" : "letters, digits and " + punctuation;
    this.maxLength = maxLength;
  }

  /**
   * @throws InvalidIdempotencyKeyException if a part or the whole key breaks a rule
   * @throws IllegalArgumentException if a part has a type keys cannot be made of, or the number of
   *     parts does not match the spec (both prevented by the annotation processor)
   */
  String compose(CommandSpec<?> spec, Object[] parts) {
    List<String> names = spec.keyPartNames();
    if (parts == null || parts.length == 0) {
      throw new IllegalArgumentException(spec.scope() + " has no key parts");
    }
    if (!names.isEmpty() && names.size() != parts.length) {
      throw new IllegalArgumentException(spec.scope() + " declares key parts " + names + " but got "
          + parts.length + " values");
    }
    if (parts.length == 1) {
      String key = check(spec, 0, parts[0]);
      checkLength(spec, key.length());
      return key;
    }
    String[] texts = new String[parts.length];
    int length = parts.length - 1;
    for (int i = 0; i < parts.length; i++) {
      texts[i] = check(spec, i, parts[i]);
      length += texts[i].length();
    }
    checkLength(spec, length);
    StringBuilder key = new StringBuilder(length);
    for (int i = 0; i < texts.length; i++) {
      if (i > 0) {
        key.append(SEPARATOR);
      }
      key.append(texts[i]);
    }
    return key.toString();
  }

  private String check(CommandSpec<?> spec, int index, Object part) {
    if (part == null) {
      throw invalid(spec, KeyRule.NULL_PART,
          "Idempotency key part " + name(spec, index) + " of " + spec.scope() + " is null");
    }
    String text = text(spec, index, part);
    if (text.isEmpty()) {
      throw invalid(spec, KeyRule.EMPTY_PART,
          "Idempotency key part " + name(spec, index) + " of " + spec.scope() + " is empty");
    }
    if (text.length() > maxLength) {
      // Checked per part too, so a huge part is rejected without scanning it.
      checkLength(spec, text.length());
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c >= 128 || !allowed[c]) {
        throw invalid(spec, KeyRule.ILLEGAL_CHARACTER,
            "Idempotency key part " + name(spec, index) + " of " + spec.scope()
                + " contains the character " + describe(c) + " at index " + i + "; allowed are "
                + allowedDescription);
      }
    }
    return text;
  }

  private void checkLength(CommandSpec<?> spec, int length) {
    if (length > maxLength) {
      String what = spec.keyPartNames().size() > 1
          ? "Idempotency key " + spec.keyPartNames() + " of " + spec.scope() + " (parts joined with '|')"
          : "Idempotency key " + name(spec, 0) + " of " + spec.scope();
      throw invalid(spec, KeyRule.TOO_LONG,
          what + " is " + length + " characters long; at most " + maxLength + " are allowed");
    }
  }

  private static String text(CommandSpec<?> spec, int index, Object part) {
    if (part instanceof String s) {
      return s;
    }
    if (part instanceof UUID || part instanceof Integer || part instanceof Long
        || part instanceof Short || part instanceof Byte || part instanceof BigInteger) {
      return part.toString();
    }
    if (part instanceof Enum<?> e) {
      return e.name();
    }
    throw new IllegalArgumentException("Idempotency key part " + name(spec, index) + " of "
        + spec.scope() + " has type " + part.getClass().getName()
        + "; keys are made of String, UUID, integral numbers and enums");
  }

  private static String name(CommandSpec<?> spec, int index) {
    List<String> names = spec.keyPartNames();
    return index < names.size() ? "'" + names.get(index) + "'" : "#" + index;
  }

  private static String describe(char c) {
    if (c >= ' ' && c < 127) {
      return "'" + c + "'";
    }
    String codePoint = String.format("U+%04X", (int) c);
    return Character.isISOControl(c) || Character.isWhitespace(c) || Character.isSurrogate(c)
        ? codePoint : "'" + c + "' (" + codePoint + ")";
  }

  private static InvalidIdempotencyKeyException invalid(CommandSpec<?> spec, KeyRule rule, String message) {
    return new InvalidIdempotencyKeyException(spec.scope(), rule, message);
  }
}
