package dev.idem.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IdempotencyKeyHeaderTest {

  private static String parse(String... values) {
    return IdempotencyKeyHeader.parse(List.of(values), 128);
  }

  @ParameterizedTest
  @ValueSource(strings = {"\"8e03978e-40d5-43e8-bc93-6894a57f9324\"", "8e03978e-40d5-43e8-bc93-6894a57f9324",
      "  \"8e03978e-40d5-43e8-bc93-6894a57f9324\"  ", " 8e03978e-40d5-43e8-bc93-6894a57f9324\t"})
  void theSfStringAndTheBareFormAreTheSameKey(String field) {
    assertEquals("8e03978e-40d5-43e8-bc93-6894a57f9324", parse(field));
  }

  @ParameterizedTest
  @ValueSource(strings = {"a-b_c.d:e@f/g+h=i~j", "\"a-b_c.d:e@f/g+h=i~j\""})
  void everyAllowedPunctuationPasses(String field) {
    assertEquals("a-b_c.d:e@f/g+h=i~j", parse(field));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "\"abc                                  | MALFORMED_STRING  | the closing quote is missing",
      "\"ab\\c\"                              | MALFORMED_STRING  | a backslash may only escape",
      "\"abc\";v=1                            | MALFORMED_STRING  | nothing may follow the closing quote",
      "\"ab\u00e9\"                           | MALFORMED_STRING  | printable ASCII only",
      "\"abc\", \"def\"                       | MULTIPLE_VALUES   | send exactly one",
      "abc, def                               | MULTIPLE_VALUES   | send exactly one",
      "\"\"                                   | EMPTY             | is empty",
      "\"ab cd\"                              | ILLEGAL_CHARACTER | contains U+0020 at index 2",
      "\"ab\\\"cd\"                           | ILLEGAL_CHARACTER | contains '\"' at index 2",
      "ab;cd                                  | ILLEGAL_CHARACTER | contains ';' at index 2",
      "\u00e9t\u00e9                          | ILLEGAL_CHARACTER | U+00E9 at index 0"})
  void malformedKeysNameTheRule(String field, KeyHeaderRule rule, String fragment) {
    InvalidKeyHeaderException e = assertThrows(InvalidKeyHeaderException.class, () -> parse(field));
    assertEquals(rule, e.rule());
    assertTrue(e.getMessage().contains(fragment), e.getMessage());
  }

  @org.junit.jupiter.api.Test
  void keysLongerThanTheMaximumAreRejectedInBothForms() {
    String key = "k".repeat(300);
    for (String field : List.of(key, "\"" + key + "\"")) {
      InvalidKeyHeaderException e = assertThrows(InvalidKeyHeaderException.class, () -> parse(field));
      assertEquals(KeyHeaderRule.TOO_LONG, e.rule());
      assertTrue(e.getMessage().contains("is 300 characters long; at most 128 are allowed"), e.getMessage());
    }
    assertEquals("k".repeat(128), parse("k".repeat(128)));
  }

  @org.junit.jupiter.api.Test
  void missingAndRepeatedFieldsAreRejected() {
    assertEquals(KeyHeaderRule.MISSING,
        assertThrows(InvalidKeyHeaderException.class, () -> IdempotencyKeyHeader.parse(List.of(), 128)).rule());
    assertEquals(KeyHeaderRule.MULTIPLE_VALUES,
        assertThrows(InvalidKeyHeaderException.class, () -> parse("abc", "abc")).rule());
    assertEquals(KeyHeaderRule.EMPTY, assertThrows(InvalidKeyHeaderException.class, () -> parse("  ")).rule());
  }
}
