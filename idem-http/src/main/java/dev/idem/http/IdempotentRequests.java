package dev.idem.http;

import dev.idem.runtime.IdempotencyException;
import dev.idem.runtime.IdempotencyInProgressException;
import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.runtime.IdempotencyLeaseLostException;
import dev.idem.runtime.IdempotencyStoreException;
import dev.idem.runtime.IdempotentResult;
import dev.idem.runtime.InvalidIdempotencyKeyException;
import dev.idem.runtime.ReplayValidity;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The Idempotency-Key header (IETF httpapi draft) for one server, whatever it is: reads and validates the key, runs
 * the application's idempotent command with it and maps the outcome to a response.
 *
 * <table>
 *   <caption>Responses</caption>
 *   <tr><th>Situation</th><th>Status</th><th>Problem type</th></tr>
 *   <tr><td>first execution</td><td>the application's</td><td></td></tr>
 *   <tr><td>replay of a completed request</td><td>the same, with {@code Idempotent-Replayed: true}</td><td></td></tr>
 *   <tr><td>no key</td><td>400</td><td>{@code idempotency-key-missing}</td></tr>
 *   <tr><td>malformed key</td><td>400</td><td>{@code idempotency-key-invalid}, member {@code rule}</td></tr>
 *   <tr><td>same key, other payload</td><td>422</td><td>{@code idempotency-key-reused}</td></tr>
 *   <tr><td>same key in flight ({@code CLAIM})</td><td>409 + {@code Retry-After}</td>
 *       <td>{@code idempotency-key-in-flight}</td></tr>
 *   <tr><td>lease lost to another request</td><td>409 + {@code Retry-After}</td>
 *       <td>{@code idempotency-key-taken-over}</td></tr>
 *   <tr><td>idem's store failed</td><td>503</td><td>{@code idempotency-store-unavailable}</td></tr>
 * </table>
 *
 * <p>Every successful keyed response carries {@code Idempotency-Key-Expires} (an HTTP-date): until then a retry with
 * the same key and payload replays this response; after it, the key runs anew. Errors are RFC 9457
 * {@code application/problem+json} documents. The application's own exceptions pass through unchanged.
 *
 * <p>Thread-safe; build one per application.
 */
public final class IdempotentRequests {

  /** Set to {@code true} on a response that replays a recorded one. */
  public static final String REPLAYED_HEADER = "Idempotent-Replayed";
  /** When the record behind a keyed response expires, as an HTTP-date. */
  public static final String EXPIRES_HEADER = "Idempotency-Key-Expires";
  /** The media type of error responses (RFC 9457). */
  public static final String PROBLEM_JSON = "application/problem+json";

  /** The replay cache's default number of entries. */
  public static final int DEFAULT_REPLAY_CACHE_ENTRIES = 4_096;
  /** The replay cache's default bytes per entry (request body, response body and header fields). */
  public static final int DEFAULT_REPLAY_CACHE_ENTRY_BYTES = 4_096;

  private static final Logger LOG = Logger.getLogger(IdempotentRequests.class.getName());

  private final int maxKeyLength;
  private final String problemTypeBase;
  private final Clock clock;
  private final ReplayCache replays;

  private IdempotentRequests(Builder builder) {
    this.maxKeyLength = builder.maxKeyLength;
    this.problemTypeBase = builder.problemTypeBase;
    this.clock = builder.clock;
    this.replays = new ReplayCache(builder.replayCacheEntries, builder.replayCacheEntryBytes);
  }

  /** The number of replays kept for retries with the same body (tests). */
  int cachedReplays() {
    return replays.size();
  }

  /** @return a builder with the defaults */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Reads the key of a request that requires one.
   *
   * @param request the request
   * @return the key, unquoted
   * @throws InvalidKeyHeaderException if it is missing or malformed
   */
  public String key(HttpRequestView request) {
    return IdempotencyKeyHeader.parse(request.headerValues(IdempotencyKeyHeader.NAME), maxKeyLength);
  }

  /**
   * Handles a request whose operation requires an {@code Idempotency-Key}: validates the header, runs the command
   * with the client and the key, and renders its result, marking replays. Validate the request's own payload
   * before: a rejected payload should not be recorded under the key.
   *
   * @param request the request
   * @param clientId the client the application authenticated; keys are scoped per client. An application without
   *     authentication passes one constant, and then its clients share one key space
   * @param command calls the generated idempotent method with {@code clientId} and the key as its key parts
   * @param render turns the result into the response; it runs on every call, first or replay, so it must depend on
   *     the result only (that is what makes a replay the same response)
   * @param <T> the stored result
   * @param <X> the command's checked business failure, passed through
   * @return the response to send
   * @throws X if the command throws it
   */
  public <T, X extends Exception> HttpReply handle(HttpRequestView request, String clientId,
      KeyedCommand<T, X> command, Function<? super T, HttpReply> render) throws X {
    Objects.requireNonNull(command, "command");
    Objects.requireNonNull(render, "render");
    checkClientId(clientId);
    String key;
    try {
      key = key(request);
    } catch (InvalidKeyHeaderException e) {
      return invalidKey(e);
    }
    return run(clientId, key, command, render, null, null, null);
  }

  /**
   * Handles a request whose operation requires an {@code Idempotency-Key} and whose payload is its body, as {@link
   * #handle(HttpRequestView, String, KeyedCommand, Function)} does, with a replay cache in front: a retry whose body
   * is byte for byte the body of an earlier replay of the same operation, client and key is answered with that
   * replay's response, without calling {@code command} (no parsing, no fingerprint, no reading the stored result
   * back), for as long as the runtime still holds that completed record in its local cache, unexpired (see {@link
   * ReplayValidity}). Any other body runs the command, so a different payload still gets 422.
   * Bounded by {@link Builder#replayCache}; disabled with 0 entries.
   *
   * @param request the request
   * @param clientId the client the application authenticated; keys are scoped per client
   * @param operation names the operation (e.g. {@code POST /payments}): one per command, so that two operations'
   *     replays never answer each other
   * @param body the request body as received; not changed
   * @param command parses and validates {@code body} (throwing {@link RejectedRequestException} to refuse it), then
   *     calls the generated idempotent method with {@code clientId} and the key as its key parts; its payload must
   *     come from {@code body} alone (not from other header fields or the query), since a retry with the same body
   *     may be answered without calling it
   * @param render turns the result into the response; it must depend on the result only (a cached replay's
   *     response is sent again without calling it)
   * @param <T> the stored result
   * @param <X> the command's checked business failure, passed through
   * @return the response to send
   * @throws X if the command throws it
   */
  public <T, X extends Exception> HttpReply handle(HttpRequestView request, String clientId, String operation,
      byte[] body, BodyCommand<T, X> command, Function<? super T, HttpReply> render) throws X {
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(body, "body");
    Objects.requireNonNull(command, "command");
    Objects.requireNonNull(render, "render");
    checkClientId(clientId);
    String key;
    try {
      key = key(request);
    } catch (InvalidKeyHeaderException e) {
      return invalidKey(e);
    }
    ReplayCache.Key cacheKey = null;
    ReplayCache.Entry cached = null;
    if (replays.isEnabled()) {
      cacheKey = new ReplayCache.Key(operation, clientId, key);
      cached = replays.get(cacheKey);
      // Equal bytes parse to the same payload, so its fingerprint is the verified one; replayAgain() then asks the
      // runtime whether that record is still the one it would replay.
      if (cached != null && Arrays.equals(cached.requestBody, body) && cached.validity.replayAgain()) {
        return cached.reply;
      }
    }
    // Copied before the command sees the body: what gets cached is the body as received, whatever the command does.
    byte[] received = cacheKey == null ? null : body.clone();
    try {
      return run(clientId, key, (client, idempotencyKey) -> command.run(client, idempotencyKey, body), render,
          cacheKey, cached, received);
    } catch (RejectedRequestException e) {
      return e.reply();
    }
  }

  /**
   * Runs the command and maps its outcome; with a {@code cacheKey}, keeps a replay served from the runtime's cache
   * for the next retry with the same body, and drops the key's older entry when the key was not replayed from it.
   */
  private <T, X extends Exception> HttpReply run(String clientId, String key, KeyedCommand<T, X> command,
      Function<? super T, HttpReply> render, ReplayCache.Key cacheKey, ReplayCache.Entry cached, byte[] body)
      throws X {
    IdempotentResult<T> result;
    try {
      result = command.run(clientId, key);
    } catch (InvalidIdempotencyKeyException e) {
      // The header passed, but the composed key broke the runtime's rules (its maxKeyLength, punctuation).
      return problem(400, "idempotency-key-invalid", "Idempotency-Key is invalid", e.getMessage(),
          e.rule().name());
    } catch (IdempotencyKeyReusedException e) {
      return problem(422, "idempotency-key-reused", "Idempotency-Key is already used",
          "This key was first used with a different request payload. A retry must send the same payload;"
              + " a new request must use a new key.");
    } catch (IdempotencyInProgressException e) {
      // A TRANSACTIONAL command's competitor has no lease: its outcome is there as soon as it commits.
      Instant leaseEndsAt = e.leaseEndsAt();
      return problem(409, "idempotency-key-in-flight", "A request is outstanding for this Idempotency-Key",
          "A request with this key is still being processed. Retry "
              + (leaseEndsAt == null ? "shortly" : "after " + leaseEndsAt + " at the latest") + " to get its outcome.")
          .withHeader("Retry-After", leaseEndsAt == null ? "1" : Long.toString(secondsUntil(leaseEndsAt)));
    } catch (IdempotencyLeaseLostException e) {
      return problem(409, "idempotency-key-taken-over", "Another request took over this Idempotency-Key",
          "This request took longer than its lease, and a retry took the key over; its outcome stands."
              + " Retry to get it.")
          .withHeader("Retry-After", "1");
    } catch (IdempotencyStoreException e) {
      LOG.log(Level.WARNING, "idempotency store failed", e);
      return problem(503, "idempotency-store-unavailable", "The idempotency store is unavailable",
          "The request's idempotency record could not be read or written. Retry with the same key.");
    } catch (IdempotencyException e) {
      LOG.log(Level.SEVERE, "idempotency failure", e);
      return problem(500, "idempotency-failure", "The request's idempotency record cannot be used",
          "The server could not record or replay this request's outcome.");
    }
    HttpReply reply = render.apply(result.value())
        .withHeader(EXPIRES_HEADER, httpDate(result.expiresAt()));
    if (!result.replayed()) {
      if (cached != null) {
        replays.remove(cacheKey, cached); // the key ran anew: its old replay is void
      }
      return reply;
    }
    reply = reply.withHeader(REPLAYED_HEADER, "true");
    if (cacheKey != null) {
      if (result.replayValidity() != ReplayValidity.NEVER) {
        replays.put(cacheKey, body, reply, result.replayValidity()); // this body is now the verified one
      } else if (cached != null) {
        replays.remove(cacheKey, cached);
      }
    }
    return reply;
  }

  /**
   * An RFC 9457 problem response with this endpoint's type base, for the application's own errors too.
   *
   * @param status the status code
   * @param type the problem type, appended to the type base (e.g. {@code invalid-payment})
   * @param title a short summary of the problem type
   * @param detail this occurrence's explanation, safe to show to the client
   * @return the reply, as {@code application/problem+json}
   */
  public HttpReply problem(int status, String type, String title, String detail) {
    return problem(status, type, title, detail, null);
  }

  private HttpReply invalidKey(InvalidKeyHeaderException e) {
    return e.rule() == KeyHeaderRule.MISSING
        ? problem(400, "idempotency-key-missing", "Idempotency-Key is missing", e.getMessage(), e.rule().name())
        : problem(400, "idempotency-key-invalid", "Idempotency-Key is invalid", e.getMessage(), e.rule().name());
  }

  /** The problem document; {@code rule}, an extension member, names the key rule a 400 broke. */
  private HttpReply problem(int status, String type, String title, String detail, String rule) {
    String json = "{\"type\":" + Json.quote(problemTypeBase + type) + ",\"title\":" + Json.quote(title)
        + ",\"status\":" + status + ",\"detail\":" + Json.quote(detail)
        + (rule == null ? "" : ",\"rule\":" + Json.quote(rule)) + "}";
    return HttpReply.of(status, PROBLEM_JSON, json.getBytes(StandardCharsets.UTF_8));
  }

  private long secondsUntil(Instant instant) {
    long millis = Duration.between(clock.instant(), instant).toMillis();
    return Math.max(1, (millis + 999) / 1000);
  }

  private static final String[] DAYS = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
  private static final String[] MONTHS =
      {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

  /**
   * RFC 9110's IMF-fixdate ({@code Wed, 02 Jan 2030 10:00:00 GMT}), as in Date and Expires, written field by field:
   * a DateTimeFormatter pattern took about a fifth of the CPU that idem-http and the example API spend on a replay
   * answered from the local cache (profiled with JFR under the HTTP benchmark's load).
   */
  static String httpDate(Instant instant) {
    LocalDateTime utc = LocalDateTime.ofEpochSecond(instant.getEpochSecond(), 0, ZoneOffset.UTC);
    StringBuilder date = new StringBuilder(29)
        .append(DAYS[utc.getDayOfWeek().ordinal()]).append(", ");
    twoDigits(date, utc.getDayOfMonth()).append(' ').append(MONTHS[utc.getMonthValue() - 1]).append(' ');
    int year = utc.getYear();
    if (year < 1000) {
      date.append(year < 10 ? "000" : year < 100 ? "00" : "0");
    }
    date.append(year).append(' ');
    twoDigits(date, utc.getHour()).append(':');
    twoDigits(date, utc.getMinute()).append(':');
    return twoDigits(date, utc.getSecond()).append(" GMT").toString();
  }

  private static StringBuilder twoDigits(StringBuilder out, int value) {
    return out.append((char) ('0' + value / 10)).append((char) ('0' + value % 10));
  }

  private static void checkClientId(String clientId) {
    Objects.requireNonNull(clientId, "clientId");
    if (clientId.isEmpty()) {
      throw new IllegalArgumentException("clientId is empty; pass the authenticated client, or one constant");
    }
    for (int i = 0; i < clientId.length(); i++) {
      if (!IdempotencyKeyHeader.isKeyCharacter(clientId.charAt(i))) {
        throw new IllegalArgumentException("clientId '" + clientId + "' contains '" + clientId.charAt(i)
            + "'; it is a key part, so it may hold letters, digits and " + IdempotencyKeyHeader.PUNCTUATION
            + " only (hash or encode other identifiers)");
      }
    }
  }

  /** Configures {@link IdempotentRequests}. */
  public static final class Builder {

    private int maxKeyLength = 128;
    private String problemTypeBase = "urn:idem:problem:";
    private Clock clock = Clock.systemUTC();
    private int replayCacheEntries = DEFAULT_REPLAY_CACHE_ENTRIES;
    private int replayCacheEntryBytes = DEFAULT_REPLAY_CACHE_ENTRY_BYTES;

    private Builder() {}

    /**
     * Bounds the replay cache of {@link IdempotentRequests#handle(HttpRequestView, String, String, byte[],
     * BodyCommand, Function)}: at most {@code maxEntries} replays (rounded down to a multiple of 8; a full set of 8
     * evicts by second chance, replays not used lately first), each holding at most {@code maxEntryBytes} of request
     * body, response body and header fields (a larger replay is answered by the runtime every time). Defaults
     * {@value IdempotentRequests#DEFAULT_REPLAY_CACHE_ENTRIES} and {@value
     * IdempotentRequests#DEFAULT_REPLAY_CACHE_ENTRY_BYTES}. An entry is used only while the runtime's result cache
     * still holds its record, so a cache larger than the runtime's ({@code resultCacheSize}) gains nothing.
     *
     * @param maxEntries 0 (disabled) or more
     * @param maxEntryBytes 1 or more
     * @return this builder
     */
    public Builder replayCache(int maxEntries, int maxEntryBytes) {
      if (maxEntries < 0) {
        throw new IllegalArgumentException("maxEntries must be 0 or more, got " + maxEntries);
      }
      if (maxEntryBytes < 1) {
        throw new IllegalArgumentException("maxEntryBytes must be positive, got " + maxEntryBytes);
      }
      this.replayCacheEntries = maxEntries;
      this.replayCacheEntryBytes = maxEntryBytes;
      return this;
    }

    /**
     * The longest key accepted. Default 128. The runtime checks the composed key (client id, '|' and the header's
     * key) against its own {@code maxKeyLength}; give it room for both.
     *
     * @param maxKeyLength 1 to 255
     * @return this builder
     */
    public Builder maxKeyLength(int maxKeyLength) {
      if (maxKeyLength < 1 || maxKeyLength > 255) {
        throw new IllegalArgumentException("maxKeyLength must be 1 to 255, got " + maxKeyLength);
      }
      this.maxKeyLength = maxKeyLength;
      return this;
    }

    /**
     * The prefix of problem types, e.g. {@code https://api.example.com/problems/} so that each type resolves to its
     * documentation. Default {@code urn:idem:problem:}.
     *
     * @param problemTypeBase a URI prefix
     * @return this builder
     */
    public Builder problemTypeBase(String problemTypeBase) {
      this.problemTypeBase = Objects.requireNonNull(problemTypeBase, "problemTypeBase");
      return this;
    }

    /**
     * The clock that {@code Retry-After} is computed with. Default the system clock.
     *
     * @param clock the clock
     * @return this builder
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** @return the configured instance */
    public IdempotentRequests build() {
      return new IdempotentRequests(this);
    }
  }
}
