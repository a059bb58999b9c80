package dev.idem.redis;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.idem.runtime.FrontTier;
import dev.idem.runtime.IdempotencyListener;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ClientOptions.DisconnectedBehavior;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A {@link FrontTier} on Redis: one Redis key per idempotency key, {@code <prefix>{<scope>|<key>}} (the hash tag
 * keeps whatever idem ever stores for a key in one Cluster slot), holding either an in-flight mark
 * ({@code F<token>}) or a committed completed outcome ({@code C<json>}).
 *
 * <ul>
 *   <li>Lookup and mark are one command: {@code SET key F<token> NX PX <inFlight> GET} (Redis 7) returns what the
 *       key held, or nothing when it marked it. Expiry runs on the Redis server's clock.</li>
 *   <li>Publish is a plain {@code SET key C<json> PX <time left>}: it replaces the mark, and is idempotent (a key's
 *       outcome never changes before its record expires). The time left is the record's expiry by the database's
 *       clock minus the database's now, so the entry never outlives the record. Outcomes whose result is longer
 *       than {@link Builder#maxResultBytes} stay database-only.</li>
 *   <li>Unmark is a compare-and-delete on the owner's token in Lua, so it can only ever remove this caller's own
 *       mark, never a published outcome nor another caller's mark.</li>
 *   <li>A mark's publish or unmark that cannot reach Redis (it fails, or the circuit is open because other keys'
 *       commands failed) is kept (bounded) and replayed when the circuit closes, for marks this tier set and for
 *       those a failed lookup (timed out, connection lost) may have set all the same, so that Redis coming back does
 *       not turn duplicates away for a whole lease on marks nobody holds; until then a lookup that meets such a mark
 *       lets the database decide.</li>
 * </ul>
 *
 * <p>Consumer batches ({@link #lookupCompleted}, {@link #publishAll}): one {@code GET} per key and one
 * {@code SET … PX} per consumed key, pipelined (sent without waiting for each reply, one key per command, so each
 * goes to its own slot's node). With {@link Builder#bloomPrefilter} a rotating Bloom filter of the keys this tier
 * published in the last one to two windows keeps keys it has definitely not seen from the lookup (the database
 * decides them); a "maybe" (a false positive included) is always looked up, so the filter never drops or skips a
 * message.
 *
 * <p>No {@code WATCH}, no multi-key command, never {@code FLUSHDB}: the same code runs on a standalone server and a
 * Cluster ({@link Builder#connect(RedisURI)}, {@link Builder#connectCluster(List)}), both through
 * {@link RedisClusterCommands}. Every command has a short timeout; a failure is answered as "unavailable" (the
 * database decides) and counts towards a circuit breaker that stops asking a sick Redis and probes it back.
 */
public final class RedisFrontTier implements FrontTier, AutoCloseable {

  /** Removes the key only if it holds the caller's mark (never a published outcome or someone else's mark). */
  static final String UNMARK_SCRIPT =
      "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";

  private static final String MARK = "F";
  private static final String OUTCOME = "C";
  private static final JsonFactory JSON_FACTORY = new JsonFactory();

  private final RedisClusterCommands<String, String> redis;
  private final RedisClusterAsyncCommands<String, String> pipelined;
  private final Duration commandTimeout;
  /** The consumer batches' prefilter; null without one. */
  private final RotatingBloomFilter bloom;
  private final RedisConnection connection;
  private final String keyPrefix;
  private final int maxResultBytes;
  private final IdempotencyListener listener;
  private final CircuitBreaker circuit;
  private final RedisScript unmarkScript = new RedisScript(UNMARK_SCRIPT);
  /**
   * Marks whose owner has not published or removed them yet: those this tier set, and those a failed lookup may have
   * set all the same (the command can reach Redis and its reply be lost or too late): Redis key to token. If the
   * owner's publish or unmark cannot reach Redis (it fails, or the circuit is open because of other keys' failures),
   * it is deferred to {@link #repairs}, so that a stale mark does not turn callers away for a whole lease once Redis
   * answers again.
   */
  private final Map<String, String> unresolvedMarks = new ConcurrentHashMap<>();
  /** Writes owed to unresolved marks, replayed when the circuit closes: Redis key to the write. */
  private final Map<String, Repair> repairs = new ConcurrentHashMap<>();

  /** A write owed to an unresolved mark: an outcome to publish (until its deadline), else the mark to remove. */
  private record Repair(String token, String outcome, long deadlineNanos) {}

  /** Bounds what an outage can make the tier remember; beyond it, marks simply expire. */
  static final int MAX_UNRESOLVED = 10_000;

  private RedisFrontTier(RedisConnection connection, Builder settings) {
    this.redis = connection.sync();
    this.pipelined = connection.async();
    this.commandTimeout = settings.commandTimeout;
    this.bloom = settings.bloomExpected <= 0 ? null
        : RotatingBloomFilter.sized(settings.bloomExpected, settings.bloomFalsePositiveRate,
            settings.bloomWindow.toNanos());
    this.connection = connection;
    this.keyPrefix = settings.keyPrefix;
    this.maxResultBytes = settings.maxResultBytes;
    this.listener = settings.listener;
    this.circuit = new CircuitBreaker(settings.failuresToOpen, settings.openFor.toNanos(), open -> {
      safely(() -> listener.frontTierCircuit(open));
      if (!open) {
        repair();
      }
    });
  }

  /**
   * Starts configuring a tier.
   *
   * @return a builder with the defaults
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The Redis key of an idempotency key: the prefix, then scope and key in one hash tag.
   *
   * @param scope the command's scope
   * @param key the composed key
   * @return the Redis key
   */
  public String redisKey(String scope, String key) {
    return keyPrefix + "{" + scope + "|" + key + "}";
  }

  /** @return whether the circuit breaker is open (Redis is not asked; the database answers everything) */
  public boolean isCircuitOpen() {
    return circuit.isOpen();
  }

  @Override
  public Lookup lookupOrMark(String scope, String key, String token, Duration inFlightFor) {
    if (!circuit.allowsCall()) {
      return Lookup.unavailable();
    }
    String redisKey = redisKey(scope, key);
    long start = System.nanoTime();
    String found;
    Long millisLeft = null;
    try {
      found = redis.setGet(redisKey, MARK + token, SetArgs.Builder.nx().px(Math.max(1, inFlightFor.toMillis())));
      if (found != null && found.startsWith(MARK)) {
        millisLeft = redis.pttl(redisKey);
      }
    } catch (RuntimeException e) {
      remember(redisKey, token);
      failed("lookup", e, start);
      return Lookup.unavailable();
    }
    Repair owed = found != null && found.startsWith(MARK) ? repairs.get(redisKey) : null;
    succeeded("lookup", start); // may close the circuit, and then repair what is owed
    if (found == null) {
      remember(redisKey, token); // until its owner publishes or removes it
      return Lookup.marked();
    }
    if (owed != null && found.equals(MARK + owed.token())) {
      return Lookup.unavailable(); // a stale mark this tier owes a repair: nobody holds it, the database decides
    }
    if (found.startsWith(MARK)) {
      // -2: gone since (its owner published or removed it); -1 cannot happen (marks always expire). Either way, a
      // moment: the caller asks again or retries shortly.
      return Lookup.inFlight(Duration.ofMillis(Math.max(0, millisLeft == null ? 0 : millisLeft)));
    }
    Completed outcome = decode(found);
    return outcome == null ? Lookup.unavailable() : Lookup.completed(outcome);
  }

  @Override
  public boolean publish(String scope, String key, Completed outcome, Duration timeToLive) {
    if (outcome.result() != null
        && outcome.result().length() > maxResultBytes / 3 // cheap bound before counting UTF-8 bytes
        && outcome.result().getBytes(StandardCharsets.UTF_8).length > maxResultBytes) {
      return false; // database-only: a large value would cost Redis memory and every replay its transfer
    }
    String redisKey = redisKey(scope, key);
    String value = encode(outcome);
    if (!circuit.allowsCall()) {
      owePublish(redisKey, value, timeToLive);
      return false;
    }
    long start = System.nanoTime();
    try {
      redis.set(redisKey, value, SetArgs.Builder.px(Math.max(1, timeToLive.toMillis())));
    } catch (RuntimeException e) {
      owePublish(redisKey, value, timeToLive);
      failed("publish", e, start);
      return false;
    }
    unresolvedMarks.remove(redisKey);
    succeeded("publish", start);
    return true;
  }

  @Override
  public void unmark(String scope, String key, String token) {
    String redisKey = redisKey(scope, key);
    if (!circuit.allowsCall()) {
      oweUnmark(redisKey, token);
      return;
    }
    long start = System.nanoTime();
    try {
      compareAndDelete(redisKey, token);
    } catch (RuntimeException e) {
      oweUnmark(redisKey, token);
      failed("unmark", e, start);
      return;
    }
    unresolvedMarks.remove(redisKey, token);
    succeeded("unmark", start);
  }

  private void compareAndDelete(String redisKey, String token) {
    unmarkScript.run(redis, new String[] {redisKey}, MARK + token);
  }

  private void remember(String redisKey, String token) {
    if (unresolvedMarks.size() < MAX_UNRESOLVED) {
      unresolvedMarks.put(redisKey, token);
    }
  }

  /** Only for a mark this tier set or may have set: a mark Redis surely never set needs no repair. */
  private void owePublish(String redisKey, String value, Duration timeToLive) {
    String token = unresolvedMarks.remove(redisKey);
    if (token != null) {
      repairs.put(redisKey, new Repair(token, value, System.nanoTime() + timeToLive.toNanos()));
    }
  }

  private void oweUnmark(String redisKey, String token) {
    if (unresolvedMarks.remove(redisKey, token)) {
      repairs.put(redisKey, new Repair(token, null, 0));
    }
  }

  /**
   * Pays what is owed to unresolved marks, once Redis answers again (the circuit closed): each outcome is published
   * with the time it has left, each mark removed by compare-and-delete. Both are safe to repeat and to race with
   * callers: an outcome never changes before it expires, and the delete only matches the owner's own mark.
   */
  private void repair() {
    for (Map.Entry<String, Repair> owed : repairs.entrySet()) {
      String redisKey = owed.getKey();
      Repair repair = owed.getValue();
      long start = System.nanoTime();
      try {
        long millisLeft = TimeUnit.NANOSECONDS.toMillis(repair.deadlineNanos - start);
        if (repair.outcome != null && millisLeft > 0) {
          redis.set(redisKey, repair.outcome, SetArgs.Builder.px(millisLeft));
        } else {
          compareAndDelete(redisKey, repair.token);
        }
      } catch (RuntimeException e) {
        safely(() -> listener.frontTierCommand("repair", e, System.nanoTime() - start));
        return; // sick again: the rest waits for the next close
      }
      repairs.remove(redisKey, repair);
      safely(() -> listener.frontTierCommand("repair", null, System.nanoTime() - start));
    }
  }

  @Override
  public List<Completed> lookupCompleted(String scope, List<String> keys) {
    Completed[] found = new Completed[keys.size()];
    if (!circuit.allowsCall()) {
      return Arrays.asList(found);
    }
    List<Integer> asked = new ArrayList<>(keys.size());
    int skipped = 0;
    for (int i = 0; i < keys.size(); i++) {
      if (bloom == null || bloom.mightContain(redisKey(scope, keys.get(i)))) {
        asked.add(i);
      } else {
        skipped++;
      }
    }
    if (skipped > 0) {
      int keysSkipped = skipped;
      safely(() -> listener.frontTierBloomSkipped(scope, keysSkipped));
    }
    if (asked.isEmpty()) {
      return Arrays.asList(found);
    }
    long start = System.nanoTime();
    List<RedisFuture<String>> replies = new ArrayList<>(asked.size());
    try {
      for (int i : asked) {
        replies.add(pipelined.get(redisKey(scope, keys.get(i))));
      }
      if (!LettuceFutures.awaitAll(commandTimeout, replies.toArray(new RedisFuture<?>[0]))) {
        throw new io.lettuce.core.RedisCommandTimeoutException("batch lookup of " + asked.size() + " keys");
      }
      for (int j = 0; j < asked.size(); j++) {
        String value = replies.get(j).get();
        found[asked.get(j)] = value == null ? null : decode(value); // a mark or a foreign value: the database decides
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Arrays.asList(new Completed[keys.size()]);
    } catch (RuntimeException | java.util.concurrent.ExecutionException e) {
      failed("batch-lookup", e instanceof RuntimeException runtime ? runtime : new IllegalStateException(e), start);
      return Arrays.asList(new Completed[keys.size()]);
    }
    succeeded("batch-lookup", start);
    return Arrays.asList(found);
  }

  @Override
  public void publishAll(String scope, Map<String, Completed> outcomes, Duration timeToLive) {
    if (outcomes.isEmpty()) {
      return;
    }
    if (bloom != null) {
      // Before the writes: a key whose write is slow or lost is only looked up in vain, never skipped wrongly.
      outcomes.keySet().forEach(key -> bloom.add(redisKey(scope, key)));
    }
    if (!circuit.allowsCall()) {
      return; // redeliveries ask the database
    }
    long start = System.nanoTime();
    List<RedisFuture<String>> replies = new ArrayList<>(outcomes.size());
    SetArgs expiry = SetArgs.Builder.px(Math.max(1, timeToLive.toMillis()));
    try {
      outcomes.forEach((key, outcome) -> replies.add(pipelined.set(redisKey(scope, key), encode(outcome), expiry)));
      if (!LettuceFutures.awaitAll(commandTimeout, replies.toArray(new RedisFuture<?>[0]))) {
        throw new io.lettuce.core.RedisCommandTimeoutException("batch publish of " + outcomes.size() + " keys");
      }
    } catch (RuntimeException e) {
      failed("batch-publish", e, start);
      return;
    }
    succeeded("batch-publish", start);
  }

  @Override
  public void forget(String scope, String key) {
    long start = System.nanoTime();
    try {
      // Asked even with the circuit open: an operator's release must not leave an outcome behind to be replayed.
      redis.unlink(redisKey(scope, key));
    } catch (RuntimeException e) {
      failed("forget", e, start);
      throw new IllegalStateException("Could not remove " + scope + " key '" + key + "' from Redis; it replays"
          + " until it expires or is removed (" + redisKey(scope, key) + ")", e);
    }
    succeeded("forget", start);
  }

  /** Closes the tier's connection and its client. */
  @Override
  public void close() {
    connection.close();
  }

  private void succeeded(String operation, long start) {
    circuit.succeeded();
    long elapsed = System.nanoTime() - start;
    safely(() -> listener.frontTierCommand(operation, null, elapsed));
  }

  private void failed(String operation, RuntimeException failure, long start) {
    circuit.failed(start);
    long elapsed = System.nanoTime() - start;
    safely(() -> listener.frontTierCommand(operation, failure, elapsed));
  }

  private static void safely(Runnable notification) {
    try {
      notification.run();
    } catch (RuntimeException ignored) {
      // a listener's failure must not turn into Redis being "unavailable"
    }
  }

  /**
   * The stored form of an outcome: {@code C} and a JSON object {@code {"f","r","e","s","x","c"}}, in that order.
   * Written with Jackson's streaming generator rather than a tree, whose {@code toString} builds a serializer provider
   * per value (measured once warm: 2.3 µs and 1.5 KB a value against 0.8 µs and 1 KB; docs/redis.md). The bytes are
   * the same as the tree wrote, so values written by either version read back.
   */
  static String encode(Completed outcome) {
    StringWriter out = new StringWriter(96 + (outcome.result() == null ? 0 : outcome.result().length()));
    out.write(OUTCOME);
    try (JsonGenerator json = JSON_FACTORY.createGenerator(out)) {
      json.writeStartObject();
      json.writeStringField("f", outcome.fingerprint());
      json.writeStringField("r", outcome.result());
      json.writeStringField("e", outcome.errorType());
      json.writeStringField("s", outcome.resultShape());
      json.writeNumberField("x", outcome.expiresAt());
      json.writeNumberField("c", outcome.createdAt());
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringWriter does not fail
    }
    return out.toString();
  }

  /**
   * The outcome, or null when the value is not one this tier wrote (the database then decides). Read with the
   * streaming parser, field by field (every replay from the tier decodes one value); fields it does not know are
   * skipped, a later duplicate wins, as in a tree.
   */
  static Completed decode(String value) {
    if (!value.startsWith(OUTCOME)) {
      return null;
    }
    String fingerprint = null;
    String result = null;
    String errorType = null;
    String resultShape = null;
    Long expiresAt = null;
    Long createdAt = null;
    try (JsonParser json = JSON_FACTORY.createParser(value.substring(OUTCOME.length()))) {
      if (json.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      for (JsonToken token = json.nextToken(); token == JsonToken.FIELD_NAME; token = json.nextToken()) {
        String field = json.currentName();
        JsonToken fieldValue = json.nextToken();
        if (fieldValue == JsonToken.START_OBJECT || fieldValue == JsonToken.START_ARRAY) {
          if (field.length() == 1 && "frescx".indexOf(field.charAt(0)) >= 0) {
            return null; // a structure where this tier writes a scalar: not its value
          }
          json.skipChildren();
          continue;
        }
        switch (field) {
          case "f" -> fingerprint = fieldValue == JsonToken.VALUE_STRING ? json.getText() : null;
          case "r" -> result = textOrNull(json, fieldValue);
          case "e" -> errorType = textOrNull(json, fieldValue);
          case "s" -> resultShape = textOrNull(json, fieldValue);
          case "x" -> expiresAt = longOrNull(json, fieldValue);
          case "c" -> createdAt = longOrNull(json, fieldValue);
          default -> { } // not a field this tier writes
        }
      }
    } catch (IOException e) {
      return null; // not JSON: not a value this tier wrote
    }
    if (fingerprint == null || expiresAt == null || createdAt == null) {
      return null;
    }
    return new Completed(fingerprint, result, errorType, resultShape, expiresAt, createdAt);
  }

  private static String textOrNull(JsonParser json, JsonToken value) throws IOException {
    return value == JsonToken.VALUE_NULL ? null : json.getText();
  }

  /** A number that fits a long (a fraction is cut, as the tree's {@code asLong} did); null for anything else. */
  private static Long longOrNull(JsonParser json, JsonToken value) throws IOException {
    if (value == JsonToken.VALUE_NUMBER_INT) {
      return json.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? null : json.getLongValue();
    }
    if (value == JsonToken.VALUE_NUMBER_FLOAT) {
      double number = json.getDoubleValue();
      return number >= Long.MIN_VALUE && number <= Long.MAX_VALUE ? (long) number : null;
    }
    return null;
  }

  /** Settings of a {@link RedisFrontTier}; {@code connect…} builds it. */
  public static final class Builder {
    private String keyPrefix = "idem:";
    private Duration commandTimeout = Duration.ofMillis(100);
    private int maxResultBytes = 64 * 1024;
    private int failuresToOpen = 5;
    private Duration openFor = Duration.ofSeconds(5);
    private IdempotencyListener listener = IdempotencyListener.NO_OP;
    private long bloomExpected;
    private double bloomFalsePositiveRate;
    private Duration bloomWindow;

    private Builder() {}

    /**
     * A rotating Bloom prefilter for consumer batches: keys this tier published in the current and the previous
     * {@code window} may be looked up in Redis; keys it definitely did not publish go to the database without a
     * Redis read ("definitely absent" is all a Bloom filter can say for sure). A false positive costs one Redis read,
     * never a message. Pays off on one consumer node per partition, where a redelivery comes back to the node that
     * consumed it. Default: none (every key is looked up).
     *
     * @param expectedPerWindow keys published per window; above it, false positives grow
     * @param falsePositiveRate the wanted rate at {@code expectedPerWindow}, between 0 and 1 exclusive
     * @param window how long a filter takes entries; a key stays in the prefilter one to two windows
     * @return this builder
     */
    public Builder bloomPrefilter(long expectedPerWindow, double falsePositiveRate, Duration window) {
      if (expectedPerWindow < 1) {
        throw new IllegalArgumentException("expectedPerWindow must be at least 1, got " + expectedPerWindow);
      }
      if (!(falsePositiveRate > 0 && falsePositiveRate < 1)) {
        throw new IllegalArgumentException("falsePositiveRate must be between 0 and 1 exclusive, got "
            + falsePositiveRate);
      }
      this.bloomWindow = RedisConnection.positive(window, "window");
      this.bloomExpected = expectedPerWindow;
      this.bloomFalsePositiveRate = falsePositiveRate;
      return this;
    }

    /**
     * What every Redis key starts with; default {@code idem:}. Several applications sharing one Redis each take
     * their own.
     *
     * @param prefix the prefix, without braces (they would move the Cluster hash tag)
     * @return this builder
     */
    public Builder keyPrefix(String prefix) {
      this.keyPrefix = RedisConnection.checkedKeyPrefix(prefix);
      return this;
    }

    /**
     * How long one Redis command may take before the call goes to the database instead; default 100 ms. Keep it
     * short: a slow Redis must not make calls slower than the database alone.
     *
     * @param timeout positive
     * @return this builder
     */
    public Builder commandTimeout(Duration timeout) {
      this.commandTimeout = RedisConnection.positive(timeout, "commandTimeout");
      return this;
    }

    /**
     * The longest result (UTF-8 bytes of its JSON) published to Redis; longer ones are replayed from the database
     * only. Default 64 KiB.
     *
     * @param bytes at least 0
     * @return this builder
     */
    public Builder maxResultBytes(int bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("maxResultBytes must not be negative, got " + bytes);
      }
      this.maxResultBytes = bytes;
      return this;
    }

    /**
     * The circuit breaker: after {@code consecutiveFailures} failed commands in a row Redis is not asked for
     * {@code openFor}; then one probe at a time, until one succeeds. Defaults 5 and 5 s.
     *
     * @param consecutiveFailures at least 1
     * @param openFor positive
     * @return this builder
     */
    public Builder circuitBreaker(int consecutiveFailures, Duration openFor) {
      if (consecutiveFailures < 1) {
        throw new IllegalArgumentException("consecutiveFailures must be at least 1, got " + consecutiveFailures);
      }
      this.failuresToOpen = consecutiveFailures;
      this.openFor = RedisConnection.positive(openFor, "openFor");
      return this;
    }

    /**
     * Where the tier reports its commands (latency, failures) and circuit changes: usually the runtime's listener
     * ({@code MicrometerIdempotencyListener}).
     *
     * @param listener the listener
     * @return this builder
     */
    public Builder listener(IdempotencyListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Connects to a standalone Redis (or a replicated one behind a single endpoint); the tier owns the client and
     * closes it.
     *
     * @param uri e.g. {@code RedisURI.create("redis://127.0.0.1:6379")}
     * @return the tier
     */
    public RedisFrontTier connect(RedisURI uri) {
      // While disconnected, fail at once (the database answers) rather than queue commands for later.
      return new RedisFrontTier(RedisConnection.standalone(uri, commandTimeout, DisconnectedBehavior.REJECT_COMMANDS),
          this);
    }

    /**
     * Connects to a Redis Cluster through its seed nodes; the tier owns the client and closes it. The topology is
     * refreshed on MOVED/ASK redirections, periodically and after failed reconnects, so a failover is followed.
     *
     * @param seeds some of the cluster's nodes
     * @return the tier
     */
    public RedisFrontTier connectCluster(List<RedisURI> seeds) {
      // A command for a node whose connection is not (yet, again) open is refused at once: the database answers.
      return new RedisFrontTier(RedisConnection.cluster(seeds, commandTimeout, DisconnectedBehavior.REJECT_COMMANDS),
          this);
    }
  }
}
