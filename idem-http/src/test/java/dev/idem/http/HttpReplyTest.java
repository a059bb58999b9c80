package dev.idem.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The reply's headers and body as adapters write them, and the IMF-fixdate idem-http writes into Expires. */
class HttpReplyTest {

  @Test
  void withHeaderReplacesANameCaseInsensitivelyAndKeepsTheOrderOfTheOthers() {
    HttpReply reply = HttpReply.json(201, "{}")
        .withHeader("Location", "/payments/1")
        .withHeader("Idempotency-Key-Expires", "x")
        .withHeader("location", "/payments/2");

    assertEquals(Map.of("Content-Type", "application/json", "Idempotency-Key-Expires", "x",
        "location", "/payments/2"), reply.headers());
    assertEquals(List.of("Content-Type", "Idempotency-Key-Expires", "location"),
        new ArrayList<>(reply.headers().keySet()));
    assertEquals("/payments/2", reply.header("LOCATION"));
    assertNull(reply.header("Retry-After"));
  }

  @Test
  void forEachHeaderGivesWhatHeadersHolds() {
    HttpReply reply = HttpReply.of(204, null, new byte[0]).withHeader("A", "1").withHeader("B", "2");
    List<String> seen = new ArrayList<>();
    reply.forEachHeader((name, value) -> seen.add(name + "=" + value));

    assertEquals(List.of("A=1", "B=2"), seen);
    assertEquals(Map.of("A", "1", "B", "2"), reply.headers());
  }

  @Test
  void withHeaderLeavesTheOriginalUnchanged() {
    HttpReply original = HttpReply.json(200, "{}");
    original.withHeader("Content-Type", "text/plain").withHeader("X", "y");

    assertEquals(Map.of("Content-Type", "application/json"), original.headers());
  }

  @Test
  void writeBodyWritesTheBodyAndBodyLengthIsItsLength() throws IOException {
    HttpReply reply = HttpReply.json(200, "{\"status\":\"UP\"}");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    reply.writeBody(out);

    assertArrayEquals(reply.body(), out.toByteArray());
    assertEquals(15, reply.bodyLength());
  }

  @Test
  void httpDateIsTheImfFixdateDateTimeFormatterWrites() {
    DateTimeFormatter imfFixdate =
        DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);
    Random random = new Random(26);
    List<Instant> instants = new ArrayList<>(List.of(Instant.EPOCH, Instant.parse("2030-01-02T10:00:00Z"),
        Instant.parse("2024-02-29T23:59:59.999Z"), Instant.parse("0999-12-31T00:00:00Z"),
        Instant.parse("9999-12-31T23:59:59Z")));
    for (int i = 0; i < 10_000; i++) {
      instants.add(Instant.ofEpochSecond(random.nextLong(-2_000_000_000L, 253_402_300_799L),
          random.nextInt(1_000_000_000)));
    }
    for (Instant instant : instants) {
      assertEquals(imfFixdate.format(instant), IdempotentRequests.httpDate(instant), instant.toString());
    }
  }
}
