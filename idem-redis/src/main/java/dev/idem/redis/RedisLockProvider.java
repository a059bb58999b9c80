package dev.idem.redis;

import dev.idem.runtime.IdempotencyStoreException;
import dev.idem.runtime.LockLease;
import dev.idem.runtime.LockProvider;
import io.lettuce.core.ClientOptions.DisconnectedBehavior;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * A {@link LockProvider} on Redis, for applications that would rather not write their single-flight locks to the
 * database; the database's {@code idem_lock} table stays the default (and the stronger choice, see below). Two keys
 * per lock name, in one Cluster slot by their hash tag:
 *
 * <ul>
 *   <li>{@code <prefix>{<name>}:lock} holds {@code <owner token>:<acquired at>} (the acquisition's time in millis
 *       on the Redis server's clock) while the lock is held, with a server-side expiry ({@code PX}) of
 *       {@code lockAtMostFor}: a holder that dies loses it then, whatever the clients' clocks say;</li>
 *   <li>{@code <prefix>{<name>}:fence} is the name's fencing counter, never expiring.</li>
 * </ul>
 *
 * <p>Each operation is one Lua script, atomic on the server: acquire takes the lock only if the lock key is absent
 * and {@code INCR}s the counter in the same script (the new value is the lease's fencing token); renew and release
 * are compare-and-set on the owner token. A release keeps the lock until {@code lockAtLeastFor} has passed since the
 * acquisition: it rewrites the key without the owner token (so a renewal still in flight cannot extend it) and
 * expiring after the remainder ({@code PX}), or deletes it if nothing remains. No {@code WATCH}, no cross-slot command:
 * the same code runs on a standalone server and a Cluster, both through {@link RedisClusterCommands}.
 *
 * <p><b>Durability.</b> The fencing tokens and the lease are only as good as Redis's durability: Redis acknowledges a
 * write before it replicates it and before it reaches the disk. A failover before replication, or a restart without
 * an append-only file, can lose the lock (a second holder gets it while the first runs) and can set the counter back,
 * so that a token is handed out again; the fenced write on the application's table ({@code FencedUpdate}) then
 * rejects the later holder's writes instead of the earlier one's. The database provider has neither weakness.
 */
public final class RedisLockProvider implements LockProvider, AutoCloseable {

  /** KEYS: lock, fence. ARGV: owner token, lease millis. Returns the new fencing token, or nil if held. */
  static final String ACQUIRE_SCRIPT = String.join("\n",
      "if redis.call('EXISTS', KEYS[1]) == 1 then return false end",
      "local fence = redis.call('INCR', KEYS[2])",
      "local now = redis.call('TIME')",
      "local millis = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)",
      "redis.call('SET', KEYS[1], ARGV[1] .. ':' .. millis, 'PX', ARGV[2])",
      "return fence");

  /** KEYS: lock. ARGV: owner token, lease millis. 1 if this owner's lease was extended, 0 if it is not its own. */
  static final String RENEW_SCRIPT = String.join("\n",
      "local held = redis.call('GET', KEYS[1])",
      "if held and string.sub(held, 1, string.len(ARGV[1]) + 1) == ARGV[1] .. ':' then",
      "  redis.call('PEXPIRE', KEYS[1], ARGV[2])",
      "  return 1",
      "end",
      "return 0");

  /**
   * KEYS: lock. ARGV: owner token, lockAtLeastFor millis. 1 if released (the key deleted, or kept without the owner
   * token until lockAtLeastFor has passed since the acquisition), 0 if the lock was not this owner's.
   */
  static final String RELEASE_SCRIPT = String.join("\n",
      "local held = redis.call('GET', KEYS[1])",
      "local prefix = ARGV[1] .. ':'",
      "if not held or string.sub(held, 1, string.len(prefix)) ~= prefix then return 0 end",
      "local acquired = tonumber(string.sub(held, string.len(prefix) + 1))",
      "local now = redis.call('TIME')",
      "local millis = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)",
      "local remaining = acquired + tonumber(ARGV[2]) - millis",
      "if remaining > 0 then",
      "  redis.call('SET', KEYS[1], 'released:' .. acquired, 'PX', remaining)",
      "else",
      "  redis.call('DEL', KEYS[1])",
      "end",
      "return 1");

  private final RedisConnection connection;
  private final RedisClusterCommands<String, String> redis;
  private final String keyPrefix;
  private final RedisScript acquire = new RedisScript(ACQUIRE_SCRIPT);
  private final RedisScript renew = new RedisScript(RENEW_SCRIPT);
  private final RedisScript release = new RedisScript(RELEASE_SCRIPT);

  private RedisLockProvider(RedisConnection connection, String keyPrefix) {
    this.connection = connection;
    this.redis = connection.sync();
    this.keyPrefix = keyPrefix;
  }

  /** @return settings to connect a provider with */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * @param name a lock's name
   * @return the Redis key that holds the lock while it is held
   */
  public String lockKey(String name) {
    return keyPrefix + "{" + checkedName(name) + "}:lock";
  }

  /**
   * @param name a lock's name
   * @return the Redis key of the name's fencing counter (in the lock key's slot)
   */
  public String fenceKey(String name) {
    return keyPrefix + "{" + checkedName(name) + "}:fence";
  }

  @Override
  public Optional<LockLease> tryAcquire(String name, Duration lockAtMostFor) {
    String owner = UUID.randomUUID().toString();
    Long fence = call("Taking", name, () -> acquire.run(redis, new String[] {lockKey(name), fenceKey(name)}, owner,
        Long.toString(millis(lockAtMostFor))));
    return fence == null ? Optional.empty() : Optional.of(new LockLease(name, owner, fence));
  }

  @Override
  public boolean renew(LockLease lease, Duration lockAtMostFor) {
    Long renewed = call("Renewing", lease.name(), () -> renew.run(redis, new String[] {lockKey(lease.name())},
        lease.ownerToken(), Long.toString(millis(lockAtMostFor))));
    return renewed != null && renewed == 1;
  }

  @Override
  public boolean release(LockLease lease, Duration lockAtLeastFor) {
    Long released = call("Releasing", lease.name(), () -> release.run(redis, new String[] {lockKey(lease.name())},
        lease.ownerToken(), Long.toString(Math.max(0, lockAtLeastFor.toMillis()))));
    return released != null && released == 1;
  }

  /** Closes the provider's connection and its client. */
  @Override
  public void close() {
    connection.close();
  }

  private static long millis(Duration lease) {
    return Math.max(1, lease.toMillis());
  }

  private static String checkedName(String name) {
    Objects.requireNonNull(name, "name");
    if (name.indexOf('{') >= 0 || name.indexOf('}') >= 0) {
      throw new IllegalArgumentException("A Redis lock's name must not contain '{' or '}' (they would move the"
          + " Cluster hash tag that keeps its lock and its fencing counter in one slot), got " + name);
    }
    return name;
  }

  private interface Call {
    Long run();
  }

  /**
   * Runs one script; a Redis failure becomes the {@link IdempotencyStoreException} the {@link LockProvider}
   * contract promises (its cause an {@link SQLException} of SQLState class 08, "connection exception", wrapping
   * Lettuce's exception: the exception type speaks of SQL, the store here is Redis).
   */
  private static Long call(String what, String name, Call call) {
    try {
      return call.run();
    } catch (IllegalArgumentException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new IdempotencyStoreException(what + " the single-flight lock '" + name + "' on Redis failed: " + e,
          new SQLException("Redis: " + e.getMessage(), "08000", e));
    }
  }

  /** Settings of a {@link RedisLockProvider}; {@code connect…} builds it. */
  public static final class Builder {
    private String keyPrefix = "idem-lock:";
    private Duration commandTimeout = Duration.ofSeconds(2);

    private Builder() {}

    /**
     * What every Redis key of the provider starts with; default {@code idem-lock:}. Applications sharing one Redis
     * each take their own.
     *
     * @param prefix the prefix, without braces (they would move the Cluster hash tag)
     * @return this builder
     */
    public Builder keyPrefix(String prefix) {
      this.keyPrefix = RedisConnection.checkedKeyPrefix(prefix);
      return this;
    }

    /**
     * How long one command may take before it counts as failed; default 2 s. A renewal that fails is retried by the
     * watchdog until 80% of {@code lockAtMostFor} has passed, so keep it well below the shortest lease.
     *
     * @param timeout positive
     * @return this builder
     */
    public Builder commandTimeout(Duration timeout) {
      this.commandTimeout = RedisConnection.positive(timeout, "commandTimeout");
      return this;
    }

    /**
     * Connects to a standalone Redis (or a replicated one behind a single endpoint); the provider owns the client
     * and closes it.
     *
     * @param uri e.g. {@code RedisURI.create("redis://127.0.0.1:6379")}
     * @return the provider
     */
    public RedisLockProvider connect(RedisURI uri) {
      // While disconnected, fail at once (the watchdog retries, the caller hears it) rather than queue.
      return new RedisLockProvider(
          RedisConnection.standalone(uri, commandTimeout, DisconnectedBehavior.REJECT_COMMANDS), keyPrefix);
    }

    /**
     * Connects to a Redis Cluster through its seed nodes; the provider owns the client and closes it. The topology
     * is refreshed every 5 s, on redirections and after three failed reconnects to a node, so a failover is followed.
     *
     * @param seeds some of the cluster's nodes
     * @return the provider
     */
    public RedisLockProvider connectCluster(List<RedisURI> seeds) {
      // Not REJECT_COMMANDS: the connection to each node opens at its first command, which would be refused.
      // A command queued while a node's connection is re-established fails by the command timeout.
      return new RedisLockProvider(
          RedisConnection.cluster(seeds, commandTimeout, DisconnectedBehavior.ACCEPT_COMMANDS), keyPrefix);
    }
  }
}
