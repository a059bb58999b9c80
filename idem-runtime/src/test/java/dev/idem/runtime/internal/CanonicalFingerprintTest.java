package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The canonical form behind fingerprints: equal values give equal fingerprints, whatever their order or JVM. */
class CanonicalFingerprintTest {

  enum Color { RED, GREEN, BLUE }

  record Line(String sku, BigDecimal price, Set<String> tags) {}

  record Order(String customer, List<Line> lines, Map<String, BigDecimal> discounts) {}

  /** Private fields and record-style accessors, as the processor sees properties. */
  static final class Amount {
    private final long amountCents;
    private final String currency;

    Amount(long amountCents, String currency) {
      this.amountCents = amountCents;
      this.currency = currency;
    }

    public long amountCents() {
      return amountCents;
    }

    public String currency() {
      return currency;
    }
  }

  static final CommandSpec<Void> ONE = CommandSpec.builder("Canonical.one", ResultType.VOID)
      .keyParts("id").payload("value").build();

  /** The elements of {@link #SET_OF}, which child JVMs fingerprint too. */
  static final String[] ELEMENTS = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
      "india", "juliett", "kilo", "lima", "mike", "november", "oscar", "papa"};

  static String fingerprint(Object value) {
    return Fingerprinter.fingerprint(ONE, new Object[] {value});
  }

  static String canonical(Object value) throws Exception {
    return Fingerprinter.canonicalJson(value);
  }

  /**
   * A null map key would be written as the text "null", which is also the string key "null"'s: two different
   * payloads, one fingerprint, and a reused key replayed instead of rejected. Refused, naming the rule; the form of
   * maps without a null key is unchanged (issue 26 §5.4).
   */
  @Test
  void aMapWithANullKeyIsRefusedAndTheStringKeyNullKeepsItsFingerprint() throws Exception {
    Map<String, Integer> nullKey = new HashMap<>();
    nullKey.put(null, 5);
    dev.idem.runtime.IdempotencyException e = org.junit.jupiter.api.Assertions.assertThrows(
        dev.idem.runtime.IdempotencyException.class, () -> fingerprint(nullKey));
    assertTrue(e.getMessage().contains("null key"), e.getMessage());
    assertTrue(e.getMessage().contains("Canonical.one"), e.getMessage());
    // Nested in a list inside a record, too.
    org.junit.jupiter.api.Assertions.assertThrows(dev.idem.runtime.IdempotencyException.class,
        () -> fingerprint(List.of(Map.of("outer", nullKey))));
    assertEquals(Fingerprinter.sha256Hex("{\"value\":{\"null\":5}}"), fingerprint(Map.of("null", 5)),
        "the stored fingerprint of a map without a null key does not change");
  }

  @Test
  void setsAreSortedWhateverTheirIterationOrder() throws Exception {
    Set<String> forward = new LinkedHashSet<>(List.of("b", "a", "c"));
    Set<String> backward = new LinkedHashSet<>(List.of("c", "a", "b"));
    Set<String> reversedTree = new TreeSet<>(Comparator.reverseOrder());
    reversedTree.addAll(forward);
    assertEquals("[\"a\",\"b\",\"c\"]", canonical(forward));
    assertEquals(fingerprint(forward), fingerprint(backward));
    assertEquals(fingerprint(forward), fingerprint(reversedTree));
    assertEquals(fingerprint(forward), fingerprint(Set.of("c", "b", "a")));
    assertEquals(fingerprint(forward), fingerprint(Set.copyOf(backward)));
    assertEquals(fingerprint(EnumSet.of(Color.BLUE, Color.RED)), fingerprint(new HashSet<>(List.of(Color.RED,
        Color.BLUE))));
    // A list's order is part of its value; a different set is a different payload.
    assertNotEquals(fingerprint(List.of("a", "b", "c")), fingerprint(List.of("c", "b", "a")));
    assertNotEquals(fingerprint(forward), fingerprint(Set.of("a", "b")));
    assertNotEquals(fingerprint(forward), fingerprint(Set.of("a", "b", "d")));
  }

  @Test
  void mapsAreSortedByTheCanonicalTextOfTheirKeys() throws Exception {
    Map<String, Integer> natural = new TreeMap<>(Map.of("x", 1, "y", 2, "z", 3));
    Map<String, Integer> reversed = new TreeMap<>(Comparator.reverseOrder());
    reversed.putAll(natural);
    Map<String, Integer> insertion = new LinkedHashMap<>();
    insertion.put("z", 3);
    insertion.put("x", 1);
    insertion.put("y", 2);
    assertEquals("{\"x\":1,\"y\":2,\"z\":3}", canonical(reversed));
    assertEquals(fingerprint(natural), fingerprint(reversed));
    assertEquals(fingerprint(natural), fingerprint(insertion));
    assertEquals(fingerprint(natural), fingerprint(Map.of("y", 2, "z", 3, "x", 1)));
    Map<Color, Integer> enumKeys = new EnumMap<>(Color.class);
    enumKeys.put(Color.RED, 1);
    enumKeys.put(Color.BLUE, 2);
    Map<Color, Integer> hashed = new HashMap<>(Map.of(Color.BLUE, 2, Color.RED, 1));
    assertEquals("{\"BLUE\":2,\"RED\":1}", canonical(enumKeys));
    assertEquals(fingerprint(enumKeys), fingerprint(hashed));
    Map<BigDecimal, String> amounts = new TreeMap<>(Comparator.reverseOrder());
    amounts.put(new BigDecimal("12.50"), "a");
    amounts.put(new BigDecimal("3"), "b");
    assertEquals("{\"12.5\":\"a\",\"3\":\"b\"}", canonical(amounts));
    assertNotEquals(fingerprint(natural), fingerprint(Map.of("x", 1, "y", 2, "z", 4)));
    assertNotEquals(fingerprint(natural), fingerprint(Map.of("x", 1, "y", 2)));
  }

  @Test
  void bigDecimalsAreComparedNumerically() throws Exception {
    assertEquals("12.5", canonical(new BigDecimal("12.50")));
    assertEquals("12.5", canonical(new BigDecimal("12.5")));
    assertEquals("1.25E+3", canonical(new BigDecimal("1250")));
    assertEquals("1.25E+3", canonical(new BigDecimal("1250.000")));
    assertEquals("0", canonical(new BigDecimal("0.000")));
    assertEquals("0", canonical(new BigDecimal("0E+5")));
    assertEquals("-0.001", canonical(new BigDecimal("-0.00100")));
    assertEquals("1E-7", canonical(new BigDecimal("0.00000010")));
    assertEquals(fingerprint(new BigDecimal("12.5")), fingerprint(new BigDecimal("12.50")));
    assertNotEquals(fingerprint(new BigDecimal("12.5")), fingerprint(new BigDecimal("12.51")));
    assertNotEquals(fingerprint(new BigDecimal("12.5")), fingerprint(new BigDecimal("125")));
  }

  @Test
  void theRulesHoldNestedInRecordsListsAndClasses() throws Exception {
    Order a = new Order("c-1",
        List.of(new Line("sku-1", new BigDecimal("9.90"), new LinkedHashSet<>(List.of("red", "big")))),
        new LinkedHashMap<>(Map.of("spring", new BigDecimal("1.0"))));
    Map<String, BigDecimal> discounts = new TreeMap<>(Comparator.reverseOrder());
    discounts.put("spring", new BigDecimal("1"));
    Order b = new Order("c-1", List.of(new Line("sku-1", new BigDecimal("9.9"), Set.of("big", "red"))), discounts);
    assertEquals("{\"customer\":\"c-1\",\"discounts\":{\"spring\":1},\"lines\":[{\"price\":9.9,\"sku\":\"sku-1\","
        + "\"tags\":[\"big\",\"red\"]}]}", canonical(a));
    assertEquals(fingerprint(a), fingerprint(b));
    Order c = new Order("c-1", List.of(new Line("sku-1", new BigDecimal("9.91"), Set.of("big", "red"))), discounts);
    assertNotEquals(fingerprint(a), fingerprint(c));
  }

  @Test
  void privateFieldsWithRecordStyleAccessorsAreState() throws Exception {
    assertEquals("{\"amountCents\":500,\"currency\":\"EUR\"}", canonical(new Amount(500, "EUR")));
    assertNotEquals(fingerprint(new Amount(500, "EUR")), fingerprint(new Amount(501, "EUR")));
  }

  /** The README's table, row by row. */
  sealed interface Adjustment permits Credit, Debit {}

  record Credit(long cents) implements Adjustment {}

  record Debit(long cents) implements Adjustment {}

  record Ledger(Adjustment last, List<Adjustment> history, Set<Credit> credits) {}

  enum Operation {
    ADD { },
    REMOVE { }
  }

  @Test
  void aValueBelowASealedTypeCarriesItsClassWhateverItWasDeclaredAs() throws Exception {
    String credit = "{\"@type\":\"" + Credit.class.getName() + "\",\"cents\":500}";
    String debit = "{\"@type\":\"" + Debit.class.getName() + "\",\"cents\":500}";
    assertEquals(credit, canonical(new Credit(500)));
    assertNotEquals(fingerprint(new Credit(500)), fingerprint(new Debit(500)));
    assertEquals(
        "{\"credits\":[" + credit + "],\"history\":[" + credit + "," + debit + "],\"last\":" + debit + "}",
        canonical(new Ledger(new Debit(500), List.of(new Credit(500), new Debit(500)), Set.of(new Credit(500)))));
    // The JDK's sealed types (String, Integer... implement ConstantDesc) and enums (implicitly sealed when their
    // constants have bodies) keep their plain forms, as every stored fingerprint has them.
    assertEquals("\"x\"", canonical("x"));
    assertEquals("42", canonical(42));
    assertEquals("\"ADD\"", canonical(Operation.ADD));
    assertEquals("{\"amountCents\":500,\"currency\":\"EUR\"}", canonical(new Amount(500, "EUR")));
  }

  @Test
  void theDocumentedCanonicalForms() throws Exception {
    assertEquals("[\"a\",\"b\"]", canonical(Set.of("b", "a")));
    assertEquals("[\"b\",\"a\"]", canonical(List.of("b", "a")));
    assertEquals("[3,1]", canonical(new int[] {3, 1}));
    assertEquals("\"x\"", canonical(java.util.Optional.of("x")));
    assertEquals("null", canonical(java.util.Optional.empty()));
    assertEquals("null", canonical(null));
    assertEquals("\"x\"", canonical('x'));
    assertEquals("12.5", canonical(12.5d));
    assertEquals("42", canonical(java.math.BigInteger.valueOf(42)));
    assertEquals("\"RED\"", canonical(Color.RED));
    assertEquals("\"2030-01-02T03:04:05Z\"", canonical(java.time.Instant.parse("2030-01-02T03:04:05Z")));
    assertEquals("\"2030-01-02\"", canonical(java.time.LocalDate.of(2030, 1, 2)));
    assertEquals("\"PT1H\"", canonical(java.time.Duration.ofHours(1)));
    assertEquals("{\"1\":\"a\",\"2\":\"b\"}", canonical(Map.of(2, "b", 1, "a")));
  }

  static final CommandSpec<Void> THREE = CommandSpec.builder("Canonical.three", ResultType.VOID)
      .keyParts("id").payload("zulu", "alpha", "mike").build();

  /**
   * The fingerprint is written straight to the digest, without the map of payload name to value it stands for: it
   * must stay the SHA-256 of that map's canonical JSON, byte for byte, or every stored record's fingerprint would
   * stop matching its retries.
   */
  @Test
  void aFingerprintIsTheDigestOfTheCanonicalMapOfPayloadNames() throws Exception {
    Object[][] payloads = {
        {"z", 1, null},
        {new Order("c-1", List.of(new Line("sku-1", new BigDecimal("9.90"), Set.of("b", "a"))),
            Map.of("spring", BigDecimal.ONE)), Map.of(2, "b", 1, "a"), new Amount(500, "EUR")},
        {List.of("b", "a"), Color.RED, "quote \" and \\ backslash, ünïcode"}};
    for (Object[] payload : payloads) {
      Map<String, Object> byName = new LinkedHashMap<>();
      for (int i = 0; i < payload.length; i++) {
        byName.put(THREE.payloadNames().get(i), payload[i]);
      }
      assertEquals(Fingerprinter.sha256Hex(canonical(byName)), Fingerprinter.fingerprint(THREE, payload));
    }
    assertEquals(Fingerprinter.sha256Hex("{\"value\":{\"amountCents\":500,\"currency\":\"EUR\"}}"),
        fingerprint(new Amount(500, "EUR")));
  }

  @Test
  void theDigestIsReusedSafelyAfterAFailure() {
    String before = fingerprint(Set.of("a"));
    try {
      fingerprint(List.of(new Object()));
    } catch (RuntimeException expected) {
      // leaves a half-fed digest behind, which the next fingerprint must not see
    }
    assertEquals(before, fingerprint(Set.of("a")));
  }

  /**
   * Each thread writes every payload with one generator, as one more root value: the bytes digested must stay a new
   * generator's (no separator, nothing left from a payload that failed half-way), payload after payload.
   */
  @Test
  void successivePayloadsOnOneThreadDigestTheirOwnCanonicalJson() throws Exception {
    for (int round = 0; round < 3; round++) {
      for (Object value : new Object[] {"a", 7, List.of("b", "a"), Map.of("k", 1), new Amount(500, "EUR")}) {
        Map<String, Object> byName = new LinkedHashMap<>();
        byName.put("value", value);
        assertEquals(Fingerprinter.sha256Hex(canonical(byName)), fingerprint(value));
      }
      try {
        fingerprint(Map.of("x", List.of(1, new Object()))); // fails inside a nested object and array
      } catch (RuntimeException expected) {
        // the next payload starts from a clean generator
      }
    }
  }

  /**
   * Set.of's iteration order depends on a salt chosen per JVM: child JVMs fingerprint the same set, and until one
   * of them iterates it in an order different from this JVM's, the test keeps asking (the equal fingerprints would
   * prove nothing otherwise).
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void anotherJvmComputesTheSameFingerprintOfSetOf() throws Exception {
    String order = String.join(",", setOf());
    String expected = fingerprint(setOf());
    List<String> orders = new ArrayList<>();
    for (int child = 0; child < 6; child++) {
      String[] answer = runChild();
      assertEquals(expected, answer[1], "fingerprint of the same Set.of in another JVM (iterated as " + answer[0]
          + ", here as " + order + ")");
      orders.add(answer[0]);
      if (!answer[0].equals(order)) {
        return;
      }
    }
    throw new AssertionError("six child JVMs all iterated Set.of like this one; the test proved nothing: " + orders);
  }

  static Set<String> setOf() {
    return Set.of(ELEMENTS);
  }

  private static String[] runChild() throws Exception {
    Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), Child.class.getName())
        .redirectErrorStream(true)
        .start();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
        StandardCharsets.UTF_8))) {
      String order = out.readLine();
      String fingerprint = out.readLine();
      assertTrue(child.waitFor(30, TimeUnit.SECONDS), "child JVM did not end");
      assertEquals(0, child.exitValue(), "child JVM failed: " + order + " " + fingerprint);
      return new String[] {order, fingerprint};
    } finally {
      child.destroyForcibly();
    }
  }

  /** Prints its iteration order of {@link #setOf()} and the fingerprint of it. */
  public static final class Child {
    public static void main(String[] args) {
      System.out.println(String.join(",", setOf()));
      System.out.println(fingerprint(setOf()));
    }
  }
}
