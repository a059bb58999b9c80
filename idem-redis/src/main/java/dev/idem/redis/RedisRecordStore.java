package dev.idem.redis;

import dev.idem.runtime.FrontTier;
import dev.idem.runtime.RecordStore;
import io.lettuce.core.ClientOptions.DisconnectedBehavior;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.util.List;

/**
 * The {@link RecordStore} of {@code @IdempotentCommand(store = Store.REDIS)} commands: their records live in Redis
 * alone, one Redis key per idempotency key, {@code <prefix>{<scope>|<key>}} (one hash tag, so one Cluster slot).
 *
 * <ul>
 *   <li>Claim: {@code SET key P<token>|<fingerprint> NX PX <lease> GET} (Redis 7): one atomic command that claims an
 *       absent key for the command's lease, on the Redis server's clock, or returns what the key holds: another
 *       caller's claim (then its {@code PTTL}) or a completed outcome ({@code C<json>}, as the front tier writes
 *       it).</li>
 *   <li>Completion: a Lua compare-and-set: {@code SET key C<json> PX <retention>} only if the key still holds this
 *       caller's claim. Release: a Lua compare-and-delete on the same value. A caller whose claim expired never
 *       overwrites nor removes what another caller holds.</li>
 *   <li>Failures are thrown, never answered as "absent" (the runtime then refuses to run the body, or reports that
 *       an outcome is not recorded): there is no database behind these records.</li>
 * </ul>
 *
 * <p>When such a command can run twice: Redis lost the claim or the outcome, that is a failover before the write
 * reached the replica that took over (Redis replication is asynchronous), an eviction under {@code maxmemory} (use
 * {@code maxmemory-policy noeviction}, or a {@code volatile-*} policy on an instance for idem alone, never
 * {@code allkeys-*}), a restart without persistence, or a body that outlived the command's {@code lease} (its claim
 * expired and a retry claimed the key anew; the late owner then gets {@code IdempotencyLeaseLostException}).
 *
 * <p>No {@code WATCH}, no multi-key command, never {@code FLUSHDB}: the same code runs on a standalone server and a
 * Cluster.
 */
public final class RedisRecordStore implements RecordStore, AutoCloseable {

  /** Replaces the caller's claim with the outcome, only if the key still holds that claim. */
  static final String COMPLETE_SCRIPT = "if redis.call('GET', KEYS[1]) == ARGV[1] then"
      + " redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) return 1 else return 0 end";
  /** Removes the caller's claim, only if the key still holds it. */
  static final String RELEASE_SCRIPT = RedisFrontTier.UNMARK_SCRIPT;

  /** What a claim's value starts with: {@code P<token>|<fingerprint>}. */
  static final String CLAIM = "P";

  private final RedisConnection connection;
  private final RedisClusterCommands<String, String> redis;
  private final String keyPrefix;
  private final RedisScript completeScript = new RedisScript(COMPLETE_SCRIPT);
  private final RedisScript releaseScript = new RedisScript(RELEASE_SCRIPT);

  private RedisRecordStore(RedisConnection connection, String keyPrefix) {
    this.connection = connection;
    this.redis = connection.sync();
    this.keyPrefix = keyPrefix;
  }

  /**
   * Starts configuring a store.
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
    return redisKey(keyPrefix, scope, key);
  }

  /** The Redis key of a record under a prefix: scope and key in one hash tag (one Cluster slot). */
  static String redisKey(String keyPrefix, String scope, String key) {
    return keyPrefix + "{" + scope + "|" + key + "}";
  }

  @Override
  public Claim claim(String scope, String key, String token, String fingerprint, Duration lease) {
    String redisKey = redisKey(scope, key);
    String found = redis.setGet(redisKey, claimValue(token, fingerprint),
        SetArgs.Builder.nx().px(Math.max(1, lease.toMillis())));
    if (found == null) {
      return Claim.claimed();
    }
    if (found.startsWith(CLAIM)) {
      int bar = found.indexOf('|');
      if (bar < 0) {
        throw new IllegalStateException("Redis key " + redisKey + " holds a value idem did not write: " + found);
      }
      Long millisLeft = redis.pttl(redisKey); // -2: completed or released since; the caller asks again shortly
      return Claim.inFlight(found.substring(bar + 1), Duration.ofMillis(Math.max(0, millisLeft == null ? 0
          : millisLeft)));
    }
    FrontTier.Completed outcome = RedisFrontTier.decode(found);
    if (outcome == null) {
      throw new IllegalStateException("Redis key " + redisKey + " holds a value idem did not write; remove it"
          + " (UNLINK " + redisKey + ") or use another keyPrefix");
    }
    return Claim.completed(outcome);
  }

  @Override
  public boolean complete(String scope, String key, String token, FrontTier.Completed outcome,
                          Duration timeToLive) {
    Long done = completeScript.run(redis, new String[] {redisKey(scope, key)},
        claimValue(token, outcome.fingerprint()), RedisFrontTier.encode(outcome),
        Long.toString(Math.max(1, timeToLive.toMillis())));
    return done != null && done == 1;
  }

  @Override
  public boolean release(String scope, String key, String token) {
    // The claim's value holds the fingerprint too, which a release does not know: compare on the token's prefix.
    String redisKey = redisKey(scope, key);
    String held = redis.get(redisKey);
    if (held == null || !held.startsWith(CLAIM + token + "|")) {
      return false;
    }
    Long done = releaseScript.run(redis, new String[] {redisKey}, held);
    return done != null && done == 1;
  }

  private static String claimValue(String token, String fingerprint) {
    return CLAIM + token + "|" + fingerprint;
  }

  /** Closes the store's connection and its client. */
  @Override
  public void close() {
    connection.close();
  }

  @Override
  public String toString() {
    return "RedisRecordStore[" + connection + ", prefix " + keyPrefix + "]";
  }

  /** Settings of a {@link RedisRecordStore}; {@code connect…} builds it. */
  public static final class Builder {
    private String keyPrefix = "idem-store:";
    private Duration commandTimeout = Duration.ofSeconds(1);

    private Builder() {}

    /**
     * What every Redis key starts with; default {@code idem-store:}.
     *
     * @param prefix the prefix, without braces (they would move the Cluster hash tag)
     * @return this builder
     */
    public Builder keyPrefix(String prefix) {
      this.keyPrefix = RedisConnection.checkedKeyPrefix(prefix);
      return this;
    }

    /**
     * How long one Redis command may take before the call fails; default 1 s. A claim that times out fails the call
     * without running the body; a completion that times out is reported as not recorded.
     *
     * @param timeout positive
     * @return this builder
     */
    public Builder commandTimeout(Duration timeout) {
      this.commandTimeout = RedisConnection.positive(timeout, "commandTimeout");
      return this;
    }

    /**
     * Connects to a standalone Redis (or a replicated one behind a single endpoint); the store owns the client.
     *
     * @param uri e.g. {@code RedisURI.create("redis://127.0.0.1:6379")}
     * @return the store
     */
    public RedisRecordStore connect(RedisURI uri) {
      // While (re)connecting, a command waits up to the command timeout, then fails: a record store is the
      // authority of its commands, so a blip must not fail calls, and an outage fails them in bounded time.
      return new RedisRecordStore(RedisConnection.standalone(uri, commandTimeout, DisconnectedBehavior.ACCEPT_COMMANDS),
          keyPrefix);
    }

    /**
     * Connects to a Redis Cluster through its seed nodes; the store owns the client. The topology is refreshed on
     * redirections, periodically and after failed reconnects, so a failover is followed.
     *
     * @param seeds some of the cluster's nodes
     * @return the store
     */
    public RedisRecordStore connectCluster(List<RedisURI> seeds) {
      return new RedisRecordStore(RedisConnection.cluster(seeds, commandTimeout, DisconnectedBehavior.ACCEPT_COMMANDS),
          keyPrefix);
    }
  }
}
