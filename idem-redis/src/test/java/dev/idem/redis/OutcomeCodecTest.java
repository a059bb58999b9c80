package dev.idem.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.runtime.FrontTier.Completed;
import java.lang.management.ManagementFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The stored form of an outcome ({@link RedisFrontTier#encode}, {@link RedisFrontTier#decode}), which the front tier,
 * the record store and the admin share: the same bytes as the tree model wrote before (values already in Redis read
 * back, and a mixed fleet reads each other's), the same answers on values idem did not write.
 */
class OutcomeCodecTest {

  private static final ObjectMapper TREE = new ObjectMapper();

  private static final List<Completed> OUTCOMES = List.of(
      new Completed("sha256:ab12", "{\"id\":42,\"note\":\"a \\\"quoted\\\" \\\\ path\"}", null, "long",
          1_764_700_000_000L, 1_764_690_000_000L),
      new Completed("fp", null, "com.example.Declined", null, Long.MAX_VALUE, 0),
      new Completed("fp\u00e9\u4e2d\ud83d\ude00", "\"tab\\t, newline\\n, control \\u0001, \u2028\"", null,
          "java.lang.String", -1, Long.MIN_VALUE),
      new Completed("", "", "", "", 1, 2));

  /** What the tier wrote with Jackson's tree model before it wrote with the streaming generator. */
  private static String treeEncoded(Completed outcome) {
    ObjectNode node = TREE.createObjectNode();
    node.put("f", outcome.fingerprint());
    node.put("r", outcome.result());
    node.put("e", outcome.errorType());
    node.put("s", outcome.resultShape());
    node.put("x", outcome.expiresAt());
    node.put("c", outcome.createdAt());
    return "C" + node;
  }

  @Test
  void writesTheSameBytesAsTheTreeModelAndReadsThemBack() {
    for (Completed outcome : OUTCOMES) {
      String stored = RedisFrontTier.encode(outcome);
      assertEquals(treeEncoded(outcome), stored);
      assertEquals(outcome, RedisFrontTier.decode(stored));
    }
  }

  @Test
  void readsFieldsInAnyOrderSkipsUnknownOnesAndCutsFractionsAsBefore() {
    assertEquals(new Completed("fp", "1", null, "int", 7, 3),
        RedisFrontTier.decode("C{\"c\":3,\"extra\":{\"a\":[1,2]},\"x\":7.9,\"s\":\"int\",\"r\":\"1\",\"f\":\"fp\"}"));
    assertEquals(new Completed("fp", "true", null, null, 7, 3),
        RedisFrontTier.decode("C{\"f\":\"fp\",\"r\":true,\"x\":7,\"c\":3}"), "a scalar result reads as its text");
  }

  @Test
  void answersNullForValuesItDidNotWrite() {
    for (String foreign : List.of("", "F-token", "P-token|fp", "C", "Cnot json", "C[1,2]", "C\"text\"",
        "C{\"r\":\"1\",\"x\":7,\"c\":3}", // no fingerprint
        "C{\"f\":1,\"x\":7,\"c\":3}", // a fingerprint that is not text
        "C{\"f\":\"fp\",\"x\":\"7\",\"c\":3}", // an expiry that is not a number
        "C{\"f\":\"fp\",\"x\":99999999999999999999999,\"c\":3}", // beyond a long
        "C{\"f\":\"fp\",\"c\":3}")) {
      assertNull(RedisFrontTier.decode(foreign), foreign);
    }
  }

  @Test
  void aStructureWhereTheTierWritesTextIsNotAnOutcome() {
    // The tree model read {"r":{...}} as the result "" (asText of an object), which a replay would then have
    // handed to the result codec as the stored result; it is not a value this tier wrote, so the database decides.
    assertNull(RedisFrontTier.decode("C{\"f\":\"fp\",\"r\":{\"id\":1},\"x\":7,\"c\":3}"));
    assertNull(RedisFrontTier.decode("C{\"f\":\"fp\",\"r\":\"1\",\"s\":[\"long\"],\"x\":7,\"c\":3}"));
  }

  @Test
  void encodingAndDecodingAllocateLessThanTheTreeModelDid() {
    // Every first call writes one value and every replay from Redis reads one. The tree model allocated about 2.9 KB
    // for the pair (a serializer provider per value, a node per field); the streaming codec about 2.2 KB.
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    Completed outcome = OUTCOMES.get(0);
    String stored = RedisFrontTier.encode(outcome);
    int pairs = 20_000;
    for (int i = 0; i < pairs; i++) { // past the first calls' class loading and buffer set-up
      RedisFrontTier.decode(RedisFrontTier.encode(outcome));
    }
    long before = threads.getCurrentThreadAllocatedBytes();
    for (int i = 0; i < pairs; i++) {
      RedisFrontTier.encode(outcome);
      RedisFrontTier.decode(stored);
    }
    long perPair = (threads.getCurrentThreadAllocatedBytes() - before) / pairs;
    assertTrue(perPair < 2_550, "allocated " + perPair + " bytes per encode and decode");
  }
}
