package dev.idem.http;

import java.util.List;

/**
 * Parses the {@code Idempotency-Key} header field. The draft defines it as an RFC 8941 Item whose value is an
 * sf-string ({@code Idempotency-Key: "8e03978e-40d5-43e8-bc93-6894a57f9324"}); many clients send the bare value
 * ({@code Idempotency-Key: 8e03978e-40d5-43e8-bc93-6894a57f9324}), so both are accepted and denote the same key.
 *
 * <p>The key itself must then fit idem's key rules: 1 to {@code maxLength} characters out of letters, digits and
 * {@code -_.:@/+=~}. An sf-string may hold characters idem keys do not allow (a space, an escaped quote); such a
 * key is rejected as {@link KeyHeaderRule#ILLEGAL_CHARACTER} rather than silently changed. Parameters after the
 * string ({@code "abc";v=1}) are rejected too: the draft defines none, and ignoring them would let two different
 * field values denote one key.
 */
public final class IdempotencyKeyHeader {

  /** The field name. */
  public static final String NAME = "Idempotency-Key";
  /** The punctuation idem keys allow by default, besides letters and digits. */
  static final String PUNCTUATION = "-_.:@/+=~";

  private IdempotencyKeyHeader() {}

  /**
   * @param values every value of the field in the request, one per field line
   * @param maxLength the longest key accepted
   * @return the key, unquoted and unescaped
   * @throws InvalidKeyHeaderException naming the broken rule
   */
  public static String parse(List<String> values, int maxLength) {
    if (values == null || values.isEmpty()) {
      throw new InvalidKeyHeaderException(KeyHeaderRule.MISSING, "This request needs an " + NAME
          + " header field, e.g. " + NAME + ": \"8e03978e-40d5-43e8-bc93-6894a57f9324\"; send a new unique value"
          + " for each new request and the same value when retrying it");
    }
    if (values.size() > 1) {
      throw multiple();
    }
    String field = trimSpaces(values.get(0));
    String key = field.startsWith("\"") ? sfString(field) : bare(field);
    if (key.isEmpty()) {
      throw new InvalidKeyHeaderException(KeyHeaderRule.EMPTY, "The " + NAME + " is empty; send a unique value"
          + " such as a UUID");
    }
    if (key.length() > maxLength) {
      throw new InvalidKeyHeaderException(KeyHeaderRule.TOO_LONG, "The " + NAME + " is " + key.length()
          + " characters long; at most " + maxLength + " are allowed (a UUID has 36)");
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (!isKeyCharacter(c)) {
        throw new InvalidKeyHeaderException(KeyHeaderRule.ILLEGAL_CHARACTER, "The " + NAME + " contains "
            + describe(c) + " at index " + i + "; allowed are letters, digits and " + PUNCTUATION);
      }
    }
    return key;
  }

  static boolean isKeyCharacter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || PUNCTUATION.indexOf(c) >= 0;
  }

  /** RFC 8941 4.2.5: DQUOTE *( unescaped / "\" ( DQUOTE / "\" ) ) DQUOTE, unescaped being printable ASCII. */
  private static String sfString(String field) {
    // Almost every key has no escape: find its closing quote and take the characters between without copying them
    // one by one (a replay answered from the replay cache spends a fair part of its CPU on this header).
    for (int i = 1; i < field.length(); i++) {
      char c = field.charAt(i);
      if (c == '"' && i + 1 == field.length()) {
        return field.substring(1, i);
      }
      if (c == '\\' || c == '"' || c < 0x20 || c > 0x7E) {
        break; // an escape, something after the closing quote, or an error: the full parse below says which
      }
    }
    StringBuilder key = new StringBuilder(field.length());
    for (int i = 1; i < field.length(); i++) {
      char c = field.charAt(i);
      if (c == '\\') {
        if (i + 1 == field.length()) {
          throw malformed("it ends in a lone backslash");
        }
        char escaped = field.charAt(++i);
        if (escaped != '"' && escaped != '\\') {
          throw malformed("a backslash may only escape \" or \\, not " + describe(escaped) + " (index " + i + ")");
        }
        key.append(escaped);
      } else if (c == '"') {
        String rest = trimSpaces(field.substring(i + 1));
        if (rest.startsWith(",")) {
          throw multiple();
        }
        if (!rest.isEmpty()) {
          throw malformed("nothing may follow the closing quote, found '" + rest + "' (idem accepts no parameters)");
        }
        return key.toString();
      } else if (c < 0x20 || c > 0x7E) {
        throw malformed("it contains " + describe(c) + " at index " + i + "; an sf-string holds printable ASCII only");
      } else {
        key.append(c);
      }
    }
    throw malformed("the closing quote is missing");
  }

  /** The bare form: the whole field value, as many clients send it. */
  private static String bare(String field) {
    if (field.indexOf(',') >= 0) {
      throw multiple();
    }
    return field;
  }

  private static String trimSpaces(String value) {
    int start = 0;
    int end = value.length();
    while (start < end && (value.charAt(start) == ' ' || value.charAt(start) == '\t')) {
      start++;
    }
    while (end > start && (value.charAt(end - 1) == ' ' || value.charAt(end - 1) == '\t')) {
      end--;
    }
    return value.substring(start, end);
  }

  private static InvalidKeyHeaderException malformed(String why) {
    return new InvalidKeyHeaderException(KeyHeaderRule.MALFORMED_STRING, "The " + NAME + " starts with a quote"
        + " but is not an RFC 8941 sf-string: " + why + ". Send \"<key>\" or the bare key");
  }

  private static InvalidKeyHeaderException multiple() {
    return new InvalidKeyHeaderException(KeyHeaderRule.MULTIPLE_VALUES, "The request carries several " + NAME
        + " values; send exactly one");
  }

  private static String describe(char c) {
    return c > 0x20 && c < 0x7F ? "'" + c + "'" : String.format("U+%04X", (int) c);
  }
}
