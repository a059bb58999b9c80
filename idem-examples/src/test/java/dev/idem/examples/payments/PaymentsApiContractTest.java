package dev.idem.examples.payments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.testing.CountingDataSource;
import dev.idem.testing.DatabaseContract;
import dev.idem.testing.KeepAliveRequests;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The payments API over real sockets, per server integration and database: the Idempotency-Key draft's status
 * codes, the replay mark, per-client keys, failures that leave no record. Each test uses its own client token and
 * keys, so that the tests of one class share the database without seeing each other's rows.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class PaymentsApiContractTest extends DatabaseContract {

  private PaymentsServer server;
  private PaymentsApi api;
  private ScriptedPayments payments;
  private ApiClient client;

  /** The server integration under test. */
  protected abstract PaymentsServer.Kind kind();

  @Override
  protected void prepare() {
    try {
      // Through the counting data source, so that a test can tell which requests reached the database.
      api = PaymentsServer.api(counting,
          runtime -> payments = new ScriptedPayments(new JdbcPayments(runtime, counting)));
      server = PaymentsServer.start(kind(), 0, api);
    } catch (Exception e) {
      throw new IllegalStateException("Cannot start the " + kind() + " server", e);
    }
    client = new ApiClient(server.port());
  }

  @AfterAll
  void stopServer() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  private static String token() {
    return "token-" + UUID.randomUUID();
  }

  private static String key() {
    return UUID.randomUUID().toString();
  }

  private static String quoted(String key) {
    return "\"" + key + "\"";
  }

  /**
   * One keep-alive connection, 200 requests one after another (the first creates, the others replay): none waits
   * for the client's delayed acknowledgement of the response's headers (Nagle's algorithm, about 40 ms each on the
   * JDK's server before JdkHttpServer.create set sun.net.httpserver.nodelay; issue 26 §5.6).
   */
  @Test
  void requestsOnOneKeepAliveConnectionDoNotStall() throws Exception {
    String body = ApiClient.body(1250, "EUR");
    String request = "POST /payments HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + token()
        + "\r\nIdempotency-Key: " + quoted(key()) + "\r\nContent-Type: application/json\r\nContent-Length: "
        + body.getBytes(java.nio.charset.StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
    KeepAliveRequests.assertMedianBelow15Ms(KeepAliveRequests.sequentialRequests(server.port(), request, 200));
  }

  @Test
  void aBodyLongerThanTheJdkServerReadsIsRefusedWith413AndRunsNothing() {
    org.junit.jupiter.api.Assumptions.assumeTrue(kind() == PaymentsServer.Kind.JDK,
        "the bound is the JDK handler's (JdkHttpServer.readBody); Jetty has its own");
    long executions = payments.executions.get();
    String padded = "{\"amountCents\": 1250, \"currency\": \"EUR\", \"note\": \"" + "x".repeat(1 << 20) + "\"}";

    HttpResponse<String> refused = client.post(token(), quoted(key()), padded);

    assertEquals(413, refused.statusCode(), refused.body());
    assertTrue(refused.body().contains("body-too-large"), refused.body());
    assertEquals(executions, payments.executions.get());
    // The server goes on answering.
    assertEquals(201, client.post(token(), quoted(key()), ApiClient.body(1250, "EUR")).statusCode());
  }

  @Test
  void concurrentRetriesCreateOnePaymentAndGetItsResponse() throws Exception {
    String token = token();
    String key = key();
    String body = ApiClient.body(1250, "EUR");
    List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      inFlight.add(client.postAsync(token, quoted(key), body));
    }
    Set<String> createdBodies = new HashSet<>();
    int firstExecutions = 0;
    int conflicts = 0;
    for (CompletableFuture<HttpResponse<String>> future : inFlight) {
      HttpResponse<String> response = future.get(45, TimeUnit.SECONDS);
      if (response.statusCode() == 201) {
        createdBodies.add(response.body());
        if (response.headers().firstValue("Idempotent-Replayed").isEmpty()) {
          firstExecutions++;
        } else {
          assertEquals("true", response.headers().firstValue("Idempotent-Replayed").orElseThrow());
        }
      } else {
        assertEquals(409, response.statusCode(), response.body());
        assertProblem(response, "idempotency-key-in-flight");
        long retryAfter = Long.parseLong(response.headers().firstValue("Retry-After").orElseThrow());
        assertTrue(retryAfter >= 1 && retryAfter <= 10, "Retry-After within the 10 s lease: " + retryAfter);
        conflicts++;
      }
    }
    assertEquals(1, firstExecutions, "exactly one response is the first execution");
    assertEquals(1, createdBodies.size(), "every 201 carries the same payment: " + createdBodies);
    assertEquals(50, firstExecutions + conflicts + replays(inFlight));
    assertEquals(1, paymentRows(token));

    String created = createdBodies.iterator().next();
    for (int i = 0; i < 5; i++) {
      HttpResponse<String> retry = client.post(token, quoted(key), body);
      assertEquals(201, retry.statusCode());
      assertEquals(created, retry.body());
      assertEquals("true", retry.headers().firstValue("Idempotent-Replayed").orElseThrow());
    }
    assertEquals(1, paymentRows(token));
  }

  private static long replays(List<CompletableFuture<HttpResponse<String>>> responses) {
    return responses.stream().map(CompletableFuture::join)
        .filter(r -> r.statusCode() == 201 && r.headers().firstValue("Idempotent-Replayed").isPresent()).count();
  }

  @Test
  void aRequestStillInFlightIsAnswered409WithRetryAfter() throws Exception {
    String token = token();
    String key = key();
    String body = ApiClient.body(700, "USD");
    payments.entered = new CountDownLatch(1);
    payments.release = new CountDownLatch(1);
    CompletableFuture<HttpResponse<String>> first;
    try {
      first = client.postAsync(token, quoted(key), body);
      assertTrue(payments.entered.await(20, TimeUnit.SECONDS), "the first request reached the business code");

      HttpResponse<String> concurrent = client.post(token, quoted(key), body);

      assertEquals(409, concurrent.statusCode());
      assertProblem(concurrent, "idempotency-key-in-flight");
      long retryAfter = Long.parseLong(concurrent.headers().firstValue("Retry-After").orElseThrow());
      assertTrue(retryAfter >= 9 && retryAfter <= 10, "the lease (10 s) has just begun: " + retryAfter);
    } finally {
      payments.release.countDown();
      payments.release = null;
    }
    HttpResponse<String> created = first.get(20, TimeUnit.SECONDS);
    assertEquals(201, created.statusCode());
    HttpResponse<String> retry = client.post(token, quoted(key), body);
    assertEquals(created.body(), retry.body());
    assertEquals("true", retry.headers().firstValue("Idempotent-Replayed").orElseThrow());
  }

  /**
   * A retry of a completed request that the runtime's local result cache holds takes no database connection, yet is
   * the same response (status, body, Location, Content-Type, expiry) and still checks the payload: another body
   * under the key is 422, answered from the cached fingerprint.
   */
  @Test
  void aCachedReplayIsTheSameResponseWithoutTheDatabaseAndStillChecksThePayload() {
    String token = token();
    String key = key();
    String body = ApiClient.body(4200, "EUR");
    HttpResponse<String> created = client.post(token, quoted(key), body);
    assertEquals(201, created.statusCode());
    long executions = payments.executions.get();
    CountingDataSource.Counts before = counting.counts();

    for (int i = 0; i < 3; i++) {
      HttpResponse<String> replay = client.post(token, quoted(key), body);
      assertEquals(201, replay.statusCode());
      assertEquals(created.body(), replay.body());
      for (String header : List.of("Content-Type", "Content-Length", "Location", "Idempotency-Key-Expires")) {
        assertEquals(created.headers().allValues(header), replay.headers().allValues(header), header);
      }
      assertEquals(List.of("true"), replay.headers().allValues("Idempotent-Replayed"));
    }
    HttpResponse<String> reused = client.post(token, quoted(key), ApiClient.body(4201, "EUR"));
    assertEquals(422, reused.statusCode());
    assertProblem(reused, "idempotency-key-reused");

    assertEquals(0, counting.counts().minus(before).connections(), "no connection for a cached outcome");
    assertEquals(executions, payments.executions.get(), "nothing ran again");
  }

  /**
   * idem-http's replay cache on this server: once a replay verified a body, retries with the same bytes are answered
   * without parsing them (nor fingerprinting, nor reading the stored result back), with the same response; another
   * payload under the key is still refused, and the same payload written otherwise is checked and replayed.
   */
  @Test
  void retriesWithTheVerifiedBytesAreAnsweredWithoutParsingAndAnotherPayloadIsStillRefused() {
    String token = token();
    String key = key();
    String body = ApiClient.body(1250, "EUR");
    HttpResponse<String> created = client.post(token, quoted(key), body);
    HttpResponse<String> verified = client.post(token, quoted(key), body);
    long parsed = api.bodiesParsed();
    counting.reset();

    for (int i = 0; i < 3; i++) {
      HttpResponse<String> replay = client.post(token, quoted(key), body);
      assertEquals(201, replay.statusCode());
      assertEquals(created.body(), replay.body());
      for (String header : List.of("Content-Type", "Content-Length", "Location", "Idempotency-Key-Expires",
          "Idempotent-Replayed")) {
        assertEquals(verified.headers().allValues(header), replay.headers().allValues(header), header);
      }
    }
    assertEquals(parsed, api.bodiesParsed(), "answered from the replay cache, the bodies unparsed");
    assertEquals(0, counting.connectionsObtained());

    HttpResponse<String> reused = client.post(token, quoted(key), ApiClient.body(1251, "EUR"));
    assertEquals(422, reused.statusCode());
    assertProblem(reused, "idempotency-key-reused");
    HttpResponse<String> reformatted = client.post(token, quoted(key), "{\"currency\":\"EUR\",\"amountCents\":1250}");
    assertEquals(201, reformatted.statusCode(), "the same payload in other bytes: parsed, fingerprinted, replayed");
    assertEquals(created.body(), reformatted.body());
    assertEquals(parsed + 2, api.bodiesParsed());
    assertEquals(1, paymentRows(token));
  }

  /** A replay larger than a replay cache entry may be is answered by the runtime every time, the same response. */
  @Test
  void replaysLargerThanACacheEntryAreAnsweredByTheRuntimeEveryTime() throws Exception {
    PaymentsApi smallCache = PaymentsServer.api(counting, runtime -> new JdbcPayments(runtime, counting),
        dev.idem.http.IdempotentRequests.builder().maxKeyLength(128).replayCache(100, 64).build());
    try (PaymentsServer other = PaymentsServer.start(kind(), 0, smallCache)) {
      ApiClient otherClient = new ApiClient(other.port());
      String token = token();
      String key = key();
      String body = ApiClient.body(1250, "EUR");
      HttpResponse<String> created = otherClient.post(token, quoted(key), body);
      for (int i = 0; i < 3; i++) {
        HttpResponse<String> replay = otherClient.post(token, quoted(key), body);
        assertEquals(201, replay.statusCode());
        assertEquals(created.body(), replay.body());
        assertEquals(List.of("true"), replay.headers().allValues("Idempotent-Replayed"));
      }
      assertEquals(4, smallCache.bodiesParsed(), "every retry parsed: nothing came from the replay cache");
    }
  }

  /** Two Idempotency-Key field lines reach idem as two values through each server's adapter. */
  @Test
  void twoKeyFieldLinesAre400MultipleValues() throws Exception {
    java.net.http.HttpRequest request = java.net.http.HttpRequest.newBuilder(
            java.net.URI.create("http://localhost:" + server.port() + "/payments"))
        .header("Authorization", "Bearer " + token()).header("Idempotency-Key", quoted(key()))
        .header("Idempotency-Key", quoted(key())).header("Content-Type", "application/json")
        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(ApiClient.body(100, "EUR"))).build();
    HttpResponse<String> response = java.net.http.HttpClient.newHttpClient()
        .send(request, HttpResponse.BodyHandlers.ofString());

    assertEquals(400, response.statusCode(), response.body());
    assertProblem(response, "idempotency-key-invalid");
    assertTrue(response.body().contains("\"rule\":\"MULTIPLE_VALUES\""), response.body());
  }

  @Test
  void theSameKeyWithAnotherBodyIs422AndWritesNothing() {
    String token = token();
    String key = key();
    HttpResponse<String> created = client.post(token, quoted(key), ApiClient.body(500, "EUR"));
    assertEquals(201, created.statusCode());

    HttpResponse<String> reused = client.post(token, quoted(key), ApiClient.body(501, "EUR"));

    assertEquals(422, reused.statusCode());
    assertProblem(reused, "idempotency-key-reused");
    assertEquals(1, paymentRows(token), "no second payment");
    HttpResponse<String> retry = client.post(token, quoted(key), ApiClient.body(500, "EUR"));
    assertEquals(created.body(), retry.body(), "the recorded outcome is unchanged");
  }

  @Test
  void healthAnswersWithoutTouchingTheDatabaseOrIdem() {
    int executions = payments.executions.get();
    HttpResponse<String> response = client.get(token(), "/health");

    assertEquals(200, response.statusCode());
    assertEquals("{\"status\":\"UP\"}", response.body());
    assertEquals(executions, payments.executions.get(), "nothing ran");
  }

  @Test
  void aMissingKeyIs400() {
    String token = token();
    int executions = payments.executions.get();
    HttpResponse<String> response = client.post(token, null, ApiClient.body(500, "EUR"));

    assertEquals(400, response.statusCode());
    assertProblem(response, "idempotency-key-missing");
    assertTrue(response.body().contains("\"rule\":\"MISSING\""), response.body());
    assertEquals(0, paymentRows(token));
    assertEquals(executions, payments.executions.get(), "nothing ran");
  }

  @Test
  void aTooLongKeyOrOneWithForbiddenCharactersIs400NamingTheRule() {
    String token = token();
    String body = ApiClient.body(500, "EUR");
    assertRejected(client.post(token, "k".repeat(300), body), "TOO_LONG", "is 300 characters long");
    assertRejected(client.post(token, quoted("k".repeat(300)), body), "TOO_LONG", "at most 128 are allowed");
    assertRejected(client.post(token, quoted("order 42"), body), "ILLEGAL_CHARACTER", "contains U+0020 at index 5");
    assertRejected(client.post(token, "order;42", body), "ILLEGAL_CHARACTER", "contains ';' at index 5");
    assertRejected(client.post(token, "\"order-42", body), "MALFORMED_STRING", "the closing quote is missing");
    assertEquals(0, paymentRows(token));
  }

  private static void assertRejected(HttpResponse<String> response, String rule, String detail) {
    assertEquals(400, response.statusCode(), response.body());
    assertProblem(response, "idempotency-key-invalid");
    assertTrue(response.body().contains("\"rule\":\"" + rule + "\""), response.body());
    assertTrue(response.body().contains(detail), response.body());
  }

  @Test
  void theSfStringFormAndTheBareFormAreTheSameKey() {
    String token = token();
    String key = key();
    String body = ApiClient.body(990, "GBP");
    HttpResponse<String> quoted = client.post(token, quoted(key), body);
    HttpResponse<String> bare = client.post(token, key, body);

    assertEquals(201, quoted.statusCode());
    assertEquals(201, bare.statusCode());
    assertEquals(quoted.body(), bare.body());
    assertEquals("true", bare.headers().firstValue("Idempotent-Replayed").orElseThrow());
    assertEquals(1, paymentRows(token));
  }

  @Test
  void twoClientsWithTheSameKeyValueCreateTwoPayments() {
    String key = key();
    String body = ApiClient.body(100, "CHF");
    String alice = token();
    String bob = token();
    HttpResponse<String> forAlice = client.post(alice, quoted(key), body);
    HttpResponse<String> forBob = client.post(bob, quoted(key), body);

    assertEquals(201, forAlice.statusCode());
    assertEquals(201, forBob.statusCode());
    assertNull(forBob.headers().firstValue("Idempotent-Replayed").orElse(null), "not Alice's replay");
    assertNotEquals(forAlice.body(), forBob.body());
    assertEquals(1, paymentRows(alice));
    assertEquals(1, paymentRows(bob));
    String bobsPayment = "/payments/" + idOf(forBob.body());
    assertEquals(404, client.get(alice, bobsPayment).statusCode(), "Alice cannot read Bob's payment");
    assertEquals(forBob.body(), client.get(bob, bobsPayment).body());
  }

  @Test
  void aServerErrorLeavesNoRecordAndItsRetryRuns() {
    String token = token();
    String key = key();
    String body = ApiClient.body(4200, "JPY");
    payments.failNext = true;

    HttpResponse<String> failed = client.post(token, quoted(key), body);

    assertEquals(500, failed.statusCode());
    assertProblem(failed, "internal-error");
    assertEquals(0, paymentRows(token));
    assertEquals(0, idemRecords(key), "the claim was released");

    HttpResponse<String> retry = client.post(token, quoted(key), body);
    assertEquals(201, retry.statusCode());
    assertFalse(retry.headers().firstValue("Idempotent-Replayed").isPresent(), "the retry ran");
    assertEquals(1, paymentRows(token));
  }

  @Test
  void anInvalidBodyIs400AndRecordsNothing() {
    String token = token();
    String key = key();
    HttpResponse<String> response = client.post(token, quoted(key), ApiClient.body(100, "XYZ"));

    assertEquals(400, response.statusCode());
    assertProblem(response, "invalid-payment");
    assertEquals(0, idemRecords(key));
    assertEquals(201, client.post(token, quoted(key), ApiClient.body(100, "EUR")).statusCode(),
        "the key is still free");
  }

  @Test
  void responsesPublishTheKeysExpiryAndTheCreatedPaymentCanBeRead() {
    String token = token();
    HttpResponse<String> created = client.post(token, quoted(key()), ApiClient.body(250, "EUR"));

    assertEquals(201, created.statusCode());
    assertTrue(created.headers().firstValue("Idempotency-Key-Expires").orElseThrow().endsWith(" GMT"));
    assertTrue(created.body().matches("\\{\"id\":\"pay_[0-9a-f]{32}\",\"amountCents\":250,\"currency\":\"EUR\"}"),
        created.body());
    String location = created.headers().firstValue("Location").orElseThrow();
    HttpResponse<String> read = client.get(token, location);
    assertEquals(200, read.statusCode());
    assertEquals(created.body(), read.body());
  }

  @Test
  void anUnauthenticatedRequestIs401() {
    HttpResponse<String> response = client.post(null, quoted(key()), ApiClient.body(250, "EUR"));
    assertEquals(401, response.statusCode());
    assertProblem(response, "unauthenticated");
  }

  static void assertProblem(HttpResponse<String> response, String type) {
    assertEquals("application/problem+json", response.headers().firstValue("Content-Type").orElseThrow());
    assertTrue(response.body().startsWith("{\"type\":\"urn:idem:problem:" + type + "\""), response.body());
    assertTrue(response.body().contains("\"status\":" + response.statusCode()), response.body());
  }

  static String idOf(String paymentJson) {
    int start = paymentJson.indexOf("\"id\":\"") + 6;
    return paymentJson.substring(start, paymentJson.indexOf('"', start));
  }

  private long paymentRows(String token) {
    // Each test's token is unique, so its client's rows are the test's own.
    return count("SELECT COUNT(*) FROM payments WHERE client_id = ?", PaymentsApi.clientIdOf(token));
  }

  private long idemRecords(String key) {
    return count("SELECT COUNT(*) FROM idem_record WHERE idem_key LIKE ?", "%|" + key);
  }

  private long count(String sql, String parameter) {
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, parameter);
      try (ResultSet rs = statement.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
