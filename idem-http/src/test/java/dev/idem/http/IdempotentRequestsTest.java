package dev.idem.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdempotencyInProgressException;
import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.runtime.IdempotentResult;
import dev.idem.runtime.InvalidIdempotencyKeyException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The mapping from outcomes to responses, with the command as a test double (the socket tests run real ones). */
class IdempotentRequestsTest {

  private static final Instant NOW = Instant.parse("2030-01-01T10:00:00Z");
  private static final Instant EXPIRES = Instant.parse("2030-01-02T10:00:00Z");

  private final IdempotentRequests requests = IdempotentRequests.builder()
      .clock(Clock.fixed(NOW, ZoneOffset.UTC)).problemTypeBase("https://api.example.com/problems/").build();

  private static HttpRequestView withKey(String... values) {
    return name -> name.equalsIgnoreCase("idempotency-key") ? List.of(values) : List.of();
  }

  private static HttpReply created(String value) {
    return HttpReply.json(201, "{\"id\":\"" + value + "\"}");
  }

  @Test
  void firstExecutionIsRenderedWithTheExpiryAndNoReplayMark() {
    AtomicReference<String> seen = new AtomicReference<>();
    HttpReply reply = requests.handle(withKey("\"k-1\""), "client-a", (client, key) -> {
      seen.set(client + "|" + key);
      return IdempotentResult.of("p-1", false, NOW, EXPIRES);
    }, IdempotentRequestsTest::created);

    assertEquals("client-a|k-1", seen.get(), "the client and the unquoted key are the key parts");
    assertEquals(201, reply.status());
    assertEquals("{\"id\":\"p-1\"}", reply.bodyText());
    assertNull(reply.header("Idempotent-Replayed"));
    assertEquals("Wed, 02 Jan 2030 10:00:00 GMT", reply.header("Idempotency-Key-Expires"));
  }

  @Test
  void replayIsTheSameResponseMarkedReplayed() {
    HttpReply reply = requests.handle(withKey("k-1"), "client-a",
        (client, key) -> IdempotentResult.of("p-1", true, NOW, EXPIRES), IdempotentRequestsTest::created);

    assertEquals(201, reply.status());
    assertEquals("{\"id\":\"p-1\"}", reply.bodyText());
    assertEquals("true", reply.header("Idempotent-Replayed"));
  }

  @Test
  void missingKeyIs400WithAProblemDocument() {
    HttpReply reply = requests.handle(name -> List.of(), "client-a", (client, key) -> {
      throw new AssertionError("must not run");
    }, IdempotentRequestsTest::created);

    assertEquals(400, reply.status());
    assertEquals("application/problem+json", reply.header("Content-Type"));
    assertTrue(reply.bodyText().startsWith("{\"type\":\"https://api.example.com/problems/idempotency-key-missing\","
        + "\"title\":\"Idempotency-Key is missing\",\"status\":400,\"detail\":\"This request needs an"), reply.bodyText());
    assertTrue(reply.bodyText().endsWith(",\"rule\":\"MISSING\"}"), reply.bodyText());
  }

  @Test
  void malformedKeyIs400NamingTheRule() {
    HttpReply reply = requests.handle(withKey("k".repeat(300)), "client-a", (client, key) -> {
      throw new AssertionError("must not run");
    }, IdempotentRequestsTest::created);

    assertEquals(400, reply.status());
    assertTrue(reply.bodyText().contains("\"type\":\"https://api.example.com/problems/idempotency-key-invalid\""));
    assertTrue(reply.bodyText().contains("\"rule\":\"TOO_LONG\""), reply.bodyText());
  }

  @Test
  void aComposedKeyTheRuntimeRejectsIs400NamingItsRule() {
    HttpReply reply = requests.handle(withKey("k"), "client-a", (client, key) -> {
      throw new InvalidIdempotencyKeyException("payments", InvalidIdempotencyKeyException.KeyRule.TOO_LONG,
          "Idempotency key [clientId, idempotencyKey] of payments is 300 characters long");
    }, IdempotentRequestsTest::created);

    assertEquals(400, reply.status());
    assertTrue(reply.bodyText().contains("\"rule\":\"TOO_LONG\""), reply.bodyText());
  }

  @Test
  void reusedKeyIs422() {
    HttpReply reply = requests.handle(withKey("k"), "client-a", (client, key) -> {
      throw new IdempotencyKeyReusedException("payments", "client-a|k");
    }, IdempotentRequestsTest::created);

    assertEquals(422, reply.status());
    assertTrue(reply.bodyText().contains("\"title\":\"Idempotency-Key is already used\""), reply.bodyText());
    assertFalse(reply.bodyText().contains("client-a|k"), "the composed key is not echoed");
  }

  @Test
  void inFlightIs409WithRetryAfterFromTheLeaseEnd() {
    HttpReply reply = requests.handle(withKey("k"), "client-a", (client, key) -> {
      throw new IdempotencyInProgressException("payments", "client-a|k", NOW.plusMillis(9_001));
    }, IdempotentRequestsTest::created);

    assertEquals(409, reply.status());
    assertEquals("10", reply.header("Retry-After"), "rounded up to whole seconds");
    assertTrue(reply.bodyText().contains("idempotency-key-in-flight"), reply.bodyText());
  }

  @Test
  void problemDocumentsEscapeTheirText() {
    HttpReply reply = requests.problem(400, "bad", "Bad \"thing\"", "line\nbreak \\ tab\t");
    assertEquals("{\"type\":\"https://api.example.com/problems/bad\",\"title\":\"Bad \\\"thing\\\"\",\"status\":400,"
        + "\"detail\":\"line\\nbreak \\\\ tab\\t\"}", reply.bodyText());
  }

  @Test
  void theApplicationsOwnFailuresPassThrough() {
    IllegalStateException failure = new IllegalStateException("gateway down");
    assertSame(failure, assertThrows(IllegalStateException.class, () -> requests.handle(withKey("k"), "client-a",
        (client, key) -> {
          throw failure;
        }, IdempotentRequestsTest::created)));
  }

  @Test
  void aClientIdThatCannotBeAKeyPartIsAProgrammingError() {
    assertThrows(IllegalArgumentException.class, () -> requests.handle(withKey("k"), "alice smith",
        (client, key) -> IdempotentResult.of("x", false, NOW, EXPIRES), IdempotentRequestsTest::created));
  }

  @Test
  void headersKeepTheirOrderAndReplaceCaseInsensitively() {
    HttpReply reply = HttpReply.json(200, "{}").withHeader("X-A", "1").withHeader("content-type", "text/plain");
    assertEquals(Map.of("X-A", "1", "content-type", "text/plain"), reply.headers());
  }
}
