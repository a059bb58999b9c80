package dev.idem.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.runtime.IdempotentResult;
import dev.idem.runtime.ReplayValidity;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The replay cache of {@code handle}'s body form, with the command as a test double whose replays carry a validity
 * the test switches (the runtime's side is {@code OutcomeContractTest}; the socket tests run both together).
 */
class ReplayCacheTest {

  private static final Instant NOW = Instant.parse("2030-01-01T10:00:00Z");
  private static final Instant EXPIRES = Instant.parse("2030-01-02T10:00:00Z");
  private static final byte[] BODY = "{\"amountCents\":1250,\"currency\":\"EUR\"}".getBytes(StandardCharsets.UTF_8);

  private final AtomicBoolean current = new AtomicBoolean(true);
  private final AtomicInteger validityChecks = new AtomicInteger();
  private final ReplayValidity validity = () -> {
    validityChecks.incrementAndGet();
    return current.get();
  };
  private final AtomicInteger commandCalls = new AtomicInteger();

  private static IdempotentRequests requests(int entries, int entryBytes) {
    return IdempotentRequests.builder().clock(Clock.fixed(NOW, ZoneOffset.UTC)).replayCache(entries, entryBytes)
        .build();
  }

  private static HttpRequestView withKey(String key) {
    return name -> name.equalsIgnoreCase("idempotency-key") ? List.of(key) : List.of();
  }

  /** A command whose every call replays the record, as a retry of a completed key does. */
  private IdempotentResult<String> replaying(String client, String key, byte[] body) {
    commandCalls.incrementAndGet();
    return IdempotentResult.of("p-" + key, true, NOW, EXPIRES, validity);
  }

  private static HttpReply render(String id) {
    return HttpReply.json(201, "{\"id\":\"" + id + "\"}").withHeader("Location", "/payments/" + id);
  }

  private HttpReply post(IdempotentRequests requests, String operation, String client, String key, byte[] body) {
    return requests.handle(withKey(key), client, operation, body, this::replaying, ReplayCacheTest::render);
  }

  @Test
  void aRetryWithTheSameBytesIsAnsweredWithoutRunningTheCommand() {
    IdempotentRequests requests = requests(100, 4096);
    HttpReply verified = post(requests, "POST /payments", "client-a", "k-1", BODY);
    HttpReply again = post(requests, "POST /payments", "client-a", "k-1", BODY.clone());
    HttpReply third = post(requests, "POST /payments", "client-a", "k-1", BODY.clone());

    assertEquals(1, commandCalls.get(), "only the replay that verified the body ran the command");
    assertEquals(2, validityChecks.get(), "each answer from the cache asked the runtime");
    assertSame(verified, again);
    assertSame(verified, third);
    assertEquals("true", third.header(IdempotentRequests.REPLAYED_HEADER));
    assertEquals("Wed, 02 Jan 2030 10:00:00 GMT", third.header(IdempotentRequests.EXPIRES_HEADER));
    assertEquals("/payments/p-k-1", third.header("Location"));
  }

  @Test
  void aDifferentPayloadUnderACachedKeyStillRunsTheCommandAndIsRefused() {
    IdempotentRequests requests = requests(100, 4096);
    post(requests, "POST /payments", "client-a", "k-1", BODY);
    byte[] other = "{\"amountCents\":9999,\"currency\":\"EUR\"}".getBytes(StandardCharsets.UTF_8);

    HttpReply refused = requests.handle(withKey("k-1"), "client-a", "POST /payments", other,
        (client, key, body) -> {
          commandCalls.incrementAndGet();
          throw new IdempotencyKeyReusedException("payments.create", client + "|" + key);
        }, ReplayCacheTest::render);

    assertEquals(422, refused.status());
    assertEquals(2, commandCalls.get());
    assertEquals(201, post(requests, "POST /payments", "client-a", "k-1", BODY).status());
    assertEquals(2, commandCalls.get(), "the verified body is still answered from the cache");
  }

  @Test
  void aRecordTheRuntimeNoLongerHoldsIsAskedForAgain() {
    IdempotentRequests requests = requests(100, 4096);
    post(requests, "POST /payments", "client-a", "k-1", BODY);
    current.set(false); // expired, evicted or forgotten in the runtime

    HttpReply firstAgain = requests.handle(withKey("k-1"), "client-a", "POST /payments", BODY,
        (client, key, body) -> {
          commandCalls.incrementAndGet();
          return IdempotentResult.of("p-new", false, NOW, EXPIRES); // the key ran anew
        }, ReplayCacheTest::render);

    assertEquals(2, commandCalls.get());
    assertNull(firstAgain.header(IdempotentRequests.REPLAYED_HEADER));
    assertEquals("/payments/p-new", firstAgain.header("Location"));
    assertEquals(0, requests.cachedReplays(), "the old replay is gone");
  }

  @Test
  void aReplayLargerThanAnEntryMayBeIsNotKept() {
    IdempotentRequests requests = requests(100, BODY.length + 40); // the body fits, not the response too
    post(requests, "POST /payments", "client-a", "k-1", BODY);
    post(requests, "POST /payments", "client-a", "k-1", BODY);

    assertEquals(2, commandCalls.get(), "every retry ran the command");
    assertEquals(0, requests.cachedReplays());
  }

  @Test
  void firstExecutionsAndReplaysWithoutValidityAreNotKept() {
    IdempotentRequests requests = requests(100, 4096);
    for (ReplayValidity none : new ReplayValidity[] {ReplayValidity.NEVER, null}) {
      requests.handle(withKey("k-2"), "client-a", "POST /payments", BODY, (client, key, body) -> {
        commandCalls.incrementAndGet();
        return none == null ? IdempotentResult.of("p-2", false, NOW, EXPIRES)
            : IdempotentResult.of("p-2", true, NOW, EXPIRES, none);
      }, ReplayCacheTest::render);
    }
    assertEquals(0, requests.cachedReplays());
  }

  @Test
  void anotherOperationOrClientIsNeverAnsweredFromTheEntry() {
    IdempotentRequests requests = requests(100, 4096);
    post(requests, "POST /payments", "client-a", "k-1", BODY);
    post(requests, "POST /refunds", "client-a", "k-1", BODY);
    post(requests, "POST /payments", "client-b", "k-1", BODY);

    assertEquals(3, commandCalls.get());
    assertEquals(3, requests.cachedReplays());
  }

  @Test
  void theCacheKeepsAtMostItsEntriesAndCanBeTurnedOff() {
    IdempotentRequests small = requests(16, 4096);
    for (int i = 0; i < 40; i++) {
      post(small, "POST /payments", "client-a", "k-" + i, BODY);
    }
    int kept = small.cachedReplays();
    assertTrue(kept > 0 && kept <= 16, "one entry per segment at most: " + kept);

    IdempotentRequests off = requests(0, 4096);
    post(off, "POST /payments", "client-a", "k-1", BODY);
    post(off, "POST /payments", "client-a", "k-1", BODY);
    assertEquals(2 + 40, commandCalls.get());
  }

  @Test
  void aFullCacheKeepsTheReplayThatIsUsedAndEvictsOneThatIsNot() {
    IdempotentRequests eight = requests(8, 4096); // one set of 8 slots: every key shares it
    for (int i = 0; i < 8; i++) {
      post(eight, "POST /payments", "client-a", "k-" + i, BODY);
    }
    assertEquals(8, eight.cachedReplays());
    post(eight, "POST /payments", "client-a", "k-0", BODY); // answered from the cache: k-0 is referenced
    assertEquals(8, commandCalls.get());

    post(eight, "POST /payments", "client-a", "k-8", BODY); // full: the first slot not referenced goes (k-1)
    assertEquals(8, eight.cachedReplays());
    post(eight, "POST /payments", "client-a", "k-0", BODY);
    post(eight, "POST /payments", "client-a", "k-8", BODY);
    assertEquals(9, commandCalls.get(), "k-0, used, and k-8, just kept, are both answered from the cache");
    post(eight, "POST /payments", "client-a", "k-1", BODY);
    assertEquals(10, commandCalls.get(), "k-1 was evicted and runs the command");
  }

  @Test
  void aRejectedBodyIsAnsweredWithTheApplicationsReplyAndKeptNowhere() {
    IdempotentRequests requests = requests(100, 4096);
    HttpReply invalid = requests.problem(400, "invalid-payment", "The payment is invalid", "currency");
    HttpReply reply = requests.handle(withKey("k-3"), "client-a", "POST /payments", BODY,
        (client, key, body) -> {
          throw new RejectedRequestException(invalid);
        }, ReplayCacheTest::render);

    assertSame(invalid, reply);
    assertEquals(0, requests.cachedReplays());
  }

  @Test
  void theBodyAsReceivedIsKeptEvenIfTheCommandChangesItsArray() {
    IdempotentRequests requests = requests(100, 4096);
    byte[] received = BODY.clone();
    requests.handle(withKey("k-4"), "client-a", "POST /payments", received, (client, key, body) -> {
      commandCalls.incrementAndGet();
      java.util.Arrays.fill(body, (byte) ' '); // a careless parser reusing the array
      return IdempotentResult.of("p-4", true, NOW, EXPIRES, validity);
    }, ReplayCacheTest::render);

    post(requests, "POST /payments", "client-a", "k-4", BODY);
    assertEquals(1, commandCalls.get(), "the retry with the bytes as received was answered from the cache");
  }

  @Test
  void anInvalidKeyIsRefusedBeforeTheCache() {
    IdempotentRequests requests = requests(100, 4096);
    HttpReply reply = requests.handle(name -> List.of(), "client-a", "POST /payments", BODY, this::replaying,
        ReplayCacheTest::render);
    assertEquals(400, reply.status());
    assertEquals(0, commandCalls.get());
  }
}
