package dev.idem.redis;

import dev.idem.runtime.FrontTier;
import dev.idem.runtime.IdemAdmin;
import dev.idem.runtime.IdemManifest;
import dev.idem.runtime.IdempotencyRecord;
import io.lettuce.core.ClientOptions.DisconnectedBehavior;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link IdemAdmin} does for the database's records, for the records of {@code store = Store.REDIS} commands,
 * which live in Redis alone ({@link RedisRecordStore}): read one key, list a scope's claims in flight, release or
 * resolve a stuck claim, forget a key. Records come back as {@link IdemAdmin.StoredRecord}, so a tool prints them as
 * it prints the database's. The {@code idem} command line uses it with {@code --redis URI}.
 *
 * <p>A Redis-only record has no {@code OUTCOME_UNKNOWN} state: a stuck key is a claim ({@code IN_PROGRESS}) whose
 * owner died or hangs; it expires by itself at its lease's end. Releasing or resolving it before then is a
 * compare-and-set fenced by the claim's owner token (as {@link #read} shows it), in one Lua script on the key's slot:
 * if the owner completed, released or lost the claim meanwhile, nothing changes. Listing uses {@code SCAN} (on every
 * master of a Cluster), never {@code KEYS}.
 */
public final class RedisRecordAdmin implements AutoCloseable {

  /** KEYS: the record. ARGV: the claim's prefix ({@code P<token>|}). Deletes the key only if it holds that claim. */
  static final String RELEASE_OWNED_SCRIPT = "local held = redis.call('GET', KEYS[1])"
      + " if held and string.sub(held, 1, string.len(ARGV[1])) == ARGV[1] then return redis.call('DEL', KEYS[1])"
      + " else return 0 end";

  private static final int SCAN_PAGE = 500;

  private final RedisConnection connection;
  private final RedisClusterCommands<String, String> redis;
  private final String keyPrefix;
  private final RedisScript completeScript = new RedisScript(RedisRecordStore.COMPLETE_SCRIPT);
  private final RedisScript releaseScript = new RedisScript(RELEASE_OWNED_SCRIPT);

  private RedisRecordAdmin(RedisConnection connection, String keyPrefix) {
    this.connection = connection;
    this.redis = connection.sync();
    this.keyPrefix = keyPrefix;
  }

  /** @return settings to connect with; the key prefix must be the {@link RedisRecordStore}'s */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Reads one record: a claim in flight (owner token, fingerprint, lease end by the Redis server's clock) or a
   * completed outcome. Reads only.
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   * @return the record, or empty if Redis holds none (never claimed, expired, released)
   * @throws IllegalStateException if the key holds a value idem did not write
   */
  public Optional<IdemAdmin.StoredRecord> read(String scope, String key) {
    String redisKey = RedisRecordStore.redisKey(keyPrefix, Objects.requireNonNull(scope, "scope"),
        Objects.requireNonNull(key, "key"));
    String value = redis.get(redisKey);
    if (value == null) {
      return Optional.empty();
    }
    Long millisLeft = redis.pttl(redisKey);
    if (millisLeft == null || millisLeft == -2) {
      return Optional.empty(); // gone since the read
    }
    return Optional.of(record(scope, key, redisKey, value, millisLeft));
  }

  /**
   * The claims in flight of a scope, stuck or running: each with its owner token and lease end. Scans the scope's
   * keys ({@code SCAN MATCH}, on every master of a Cluster), so it reads every key of the scope: an operator's tool,
   * not something to call per request.
   *
   * @param scope the command's scope
   * @param limit the most claims returned
   * @return the claims found, in no particular order
   */
  public List<IdemAdmin.StoredRecord> inFlight(String scope, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive, got " + limit);
    }
    String keysOfScope = RedisRecordStore.redisKey(keyPrefix, Objects.requireNonNull(scope, "scope"), "");
    keysOfScope = keysOfScope.substring(0, keysOfScope.length() - 1); // "<prefix>{<scope>|", then any key and '}'
    ScanArgs match = ScanArgs.Builder.matches(globEscaped(keysOfScope) + "*").limit(SCAN_PAGE);
    List<IdemAdmin.StoredRecord> claims = new ArrayList<>();
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      KeyScanCursor<String> page = redis.scan(cursor, match);
      for (String redisKey : page.getKeys()) {
        String value = redis.get(redisKey);
        if (value == null || !value.startsWith(RedisRecordStore.CLAIM)) {
          continue; // completed, or gone since the scan
        }
        Long millisLeft = redis.pttl(redisKey);
        if (millisLeft != null && millisLeft != -2) {
          String key = redisKey.substring(keysOfScope.length(), redisKey.length() - 1);
          claims.add(record(scope, key, redisKey, value, millisLeft));
          if (claims.size() == limit) {
            return claims;
          }
        }
      }
      cursor = page;
    } while (!cursor.isFinished());
    return claims;
  }

  /**
   * Deletes a claim whose owner is known dead or stuck, and whose effect is known <em>not</em> to have happened, so
   * that the next call runs the command again; only if the key still holds the claim of {@code ownerToken}.
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   * @param ownerToken the claim's owner, as {@link #read} or {@link #inFlight} shows it
   * @return whether that claim was deleted (false: no such claim any more: completed, released, expired, another's)
   */
  public boolean release(String scope, String key, String ownerToken) {
    String redisKey = RedisRecordStore.redisKey(keyPrefix, scope, key);
    Long deleted = releaseScript.run(redis, new String[] {redisKey},
        RedisRecordStore.CLAIM + Objects.requireNonNull(ownerToken, "ownerToken") + "|");
    return deleted != null && deleted == 1;
  }

  /**
   * Completes a stuck claim with the result its execution had (the effect is known to have happened), so that every
   * retry replays it, for the command's retention from now (by the Redis server's clock); only if the key still holds
   * the claim of {@code ownerToken}. The result is checked against the command's result shape from the manifest
   * first, and stored with the manifest's shape hash, as a completion stores it.
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   * @param ownerToken the claim's owner, as {@link #read} or {@link #inFlight} shows it
   * @param resultJson the result as JSON ({@code "null"} for a null result); null for a void command
   * @param command the command of {@code scope} as the application's manifest describes it
   * @return whether that claim was completed (false: no such claim any more)
   * @throws IllegalArgumentException if the result does not fit the command's result type, or the command is not
   *     the scope's
   */
  public boolean resolve(String scope, String key, String ownerToken, String resultJson,
                         IdemManifest.Command command) {
    Objects.requireNonNull(command, "command");
    if (!command.scope().equals(scope)) {
      throw new IllegalArgumentException("The manifest's command is " + command.scope() + ", not " + scope);
    }
    Duration retention;
    try {
      retention = Duration.parse(command.retention());
    } catch (DateTimeParseException | NullPointerException e) {
      throw new IllegalArgumentException("The manifest's retention of " + scope + " is not an ISO-8601 duration: "
          + command.retention(), e);
    }
    command.checkResult(resultJson);
    String redisKey = RedisRecordStore.redisKey(keyPrefix, scope, key);
    String claim = redis.get(redisKey);
    String claimPrefix = RedisRecordStore.CLAIM + Objects.requireNonNull(ownerToken, "ownerToken") + "|";
    if (claim == null || !claim.startsWith(claimPrefix)) {
      return false;
    }
    long now = serverMillis();
    FrontTier.Completed outcome = new FrontTier.Completed(claim.substring(claimPrefix.length()), resultJson, null,
        command.isVoid() ? null : command.resultShapeHash(), now + retention.toMillis(), now);
    // Compares the whole claim (token and fingerprint): the outcome carries the fingerprint read above.
    Long done = completeScript.run(redis, new String[] {redisKey}, claim, RedisFrontTier.encode(outcome),
        Long.toString(Math.max(1, retention.toMillis())));
    return done != null && done == 1;
  }

  /**
   * Deletes a record whatever it holds (a claim in flight: its owner's completion then fails as lease lost; a
   * completed outcome: the next call runs the command again).
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   * @return whether Redis held the key
   */
  public boolean forget(String scope, String key) {
    Long removed = redis.unlink(RedisRecordStore.redisKey(keyPrefix, scope, key));
    return removed != null && removed > 0;
  }

  /** Closes the admin's connection and its client. */
  @Override
  public void close() {
    connection.close();
  }

  @Override
  public String toString() {
    return "RedisRecordAdmin[" + connection + ", prefix " + keyPrefix + "]";
  }

  private IdemAdmin.StoredRecord record(String scope, String key, String redisKey, String value, long millisLeft) {
    Instant now = Instant.ofEpochMilli(serverMillis());
    if (value.startsWith(RedisRecordStore.CLAIM)) {
      int bar = value.indexOf('|');
      if (bar < 0) {
        throw notIdems(redisKey);
      }
      // A claim always expires (PX of its lease): its expiry is its lease's end.
      Instant leaseUntil = millisLeft >= 0 ? now.plusMillis(millisLeft) : null;
      return new IdemAdmin.StoredRecord(new IdempotencyRecord(scope, key, IdempotencyRecord.State.IN_PROGRESS,
          value.substring(RedisRecordStore.CLAIM.length(), bar), leaseUntil, null, leaseUntil,
          IdempotencyRecord.StoredOutcome.NONE, null, 0, null), value.substring(bar + 1), null, null);
    }
    FrontTier.Completed outcome = RedisFrontTier.decode(value);
    if (outcome == null) {
      throw notIdems(redisKey);
    }
    IdempotencyRecord.StoredOutcome stored = outcome.errorType() != null
        ? IdempotencyRecord.StoredOutcome.BUSINESS_FAILURE
        : outcome.result() != null ? IdempotencyRecord.StoredOutcome.RESULT : IdempotencyRecord.StoredOutcome.NONE;
    return new IdemAdmin.StoredRecord(new IdempotencyRecord(scope, key, IdempotencyRecord.State.COMPLETED, null,
        null, Instant.ofEpochMilli(outcome.createdAt()), Instant.ofEpochMilli(outcome.expiresAt()), stored,
        outcome.errorType(), outcome.result() == null ? 0 : outcome.result().length(), null),
        outcome.fingerprint(), outcome.resultShape(), outcome.result());
  }

  private static IllegalStateException notIdems(String redisKey) {
    return new IllegalStateException("Redis key " + redisKey + " holds a value idem did not write; remove it"
        + " (UNLINK " + redisKey + ") or use another keyPrefix");
  }

  /** The Redis server's clock, which the claims' and outcomes' expiries run on. */
  private long serverMillis() {
    List<String> time = redis.time(); // seconds, microseconds
    return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
  }

  /** {@code SCAN MATCH} treats {@code * ? [ ] \} as a glob: a prefix or scope holding them matches literally. */
  static String globEscaped(String literal) {
    StringBuilder escaped = new StringBuilder(literal.length());
    for (char c : literal.toCharArray()) {
      if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
        escaped.append('\\');
      }
      escaped.append(c);
    }
    return escaped.toString();
  }

  /** Settings of a {@link RedisRecordAdmin}; {@code connect…} builds it. */
  public static final class Builder {
    private String keyPrefix = "idem-store:";
    private Duration commandTimeout = Duration.ofSeconds(5);

    private Builder() {}

    /**
     * The {@link RedisRecordStore}'s key prefix; default {@code idem-store:}, as the store's.
     *
     * @param prefix the prefix, without braces
     * @return this builder
     */
    public Builder keyPrefix(String prefix) {
      this.keyPrefix = RedisConnection.checkedKeyPrefix(prefix);
      return this;
    }

    /**
     * How long one command may take before it fails; default 5 s (an operator's tool, not a request path).
     *
     * @param timeout positive
     * @return this builder
     */
    public Builder commandTimeout(Duration timeout) {
      this.commandTimeout = RedisConnection.positive(timeout, "commandTimeout");
      return this;
    }

    /**
     * Connects to a standalone Redis; the admin owns the client and closes it.
     *
     * @param uri e.g. {@code RedisURI.create("redis://127.0.0.1:6379")}
     * @return the admin
     */
    public RedisRecordAdmin connect(RedisURI uri) {
      return new RedisRecordAdmin(RedisConnection.standalone(uri, commandTimeout, DisconnectedBehavior.ACCEPT_COMMANDS),
          keyPrefix);
    }

    /**
     * Connects to a Redis Cluster through its seed nodes; {@link #inFlight} then scans every master.
     *
     * @param seeds some of the cluster's nodes
     * @return the admin
     */
    public RedisRecordAdmin connectCluster(List<RedisURI> seeds) {
      return new RedisRecordAdmin(RedisConnection.cluster(seeds, commandTimeout, DisconnectedBehavior.ACCEPT_COMMANDS),
          keyPrefix);
    }
  }
}
