package dev.idem.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The one Lettuce client and the one connection of an idem Redis component ({@link RedisFrontTier},
 * {@link RedisRecordStore}, {@link RedisLockProvider}, {@link RedisRecordAdmin}). Lettuce's model: a connection is
 * thread-safe and multiplexes every caller's commands, so a component needs exactly one, for its whole life.
 *
 * <p>Lifecycle: the component that opened it owns it and closes it in its own {@code close()}; closing closes the
 * connection, then shuts the client (its event loops and timers) down. Nothing else closes it.
 *
 * <p>Standalone and Cluster connections are used through the same {@link RedisClusterCommands} interface, so the
 * components' code is the same for both; a Cluster connection refreshes its topology every 5 s, on MOVED/ASK
 * redirections and after three failed reconnects to a node, so that a failover is followed.
 */
final class RedisConnection implements AutoCloseable {

  private final AbstractRedisClient client;
  private final StatefulConnection<String, String> connection;
  private final RedisClusterCommands<String, String> sync;
  private final RedisClusterAsyncCommands<String, String> async;
  private final String description;

  private RedisConnection(AbstractRedisClient client, StatefulConnection<String, String> connection,
                          RedisClusterCommands<String, String> sync, RedisClusterAsyncCommands<String, String> async,
                          String description) {
    this.client = client;
    this.connection = connection;
    this.sync = sync;
    this.async = async;
    this.description = description;
  }

  /**
   * Connects to a standalone Redis (or a replicated one behind a single endpoint).
   *
   * @param uri the server
   * @param commandTimeout how long one command may take before it fails
   * @param whileDisconnected {@code REJECT_COMMANDS} to fail at once while reconnecting, {@code ACCEPT_COMMANDS} to
   *     let a command wait for the reconnect up to {@code commandTimeout}
   * @return the open connection, owned by the caller
   */
  static RedisConnection standalone(RedisURI uri, Duration commandTimeout,
                                    ClientOptions.DisconnectedBehavior whileDisconnected) {
    RedisClient client = RedisClient.create(uri);
    client.setOptions(ClientOptions.builder()
        .autoReconnect(true)
        .disconnectedBehavior(whileDisconnected)
        .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
        .build());
    try {
      StatefulRedisConnection<String, String> connection = client.connect();
      connection.setTimeout(commandTimeout);
      return new RedisConnection(client, connection, connection.sync(), connection.async(),
          uri.getHost() + ":" + uri.getPort());
    } catch (RuntimeException e) {
      client.shutdown();
      throw e;
    }
  }

  /**
   * Connects to a Redis Cluster through some of its nodes.
   *
   * @param seeds some of the cluster's nodes
   * @param commandTimeout how long one command may take before it fails
   * @param whileDisconnected as for {@link #standalone}; the connection to each master is opened here, before the
   *     first command (see {@link #connectToEveryMaster}); a node connection that drops later and any replica's
   *     open at their next command, which {@code REJECT_COMMANDS} refuses (a component that must not fail then takes
   *     {@code ACCEPT_COMMANDS}; one with a database behind it may take the refusal)
   * @return the open connection, owned by the caller
   */
  static RedisConnection cluster(List<RedisURI> seeds, Duration commandTimeout,
                                 ClientOptions.DisconnectedBehavior whileDisconnected) {
    RedisClusterClient client = RedisClusterClient.create(seeds);
    client.setOptions(ClusterClientOptions.builder()
        .autoReconnect(true)
        .disconnectedBehavior(whileDisconnected)
        .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
        .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
            .enablePeriodicRefresh(Duration.ofSeconds(5))
            // A master that stops answering: refresh after a few failed reconnects (an adaptive trigger, on by
            // default like the MOVED and ASK ones) rather than wait for the period.
            .refreshTriggersReconnectAttempts(3)
            .build())
        .build());
    try {
      StatefulRedisClusterConnection<String, String> connection = client.connect();
      connection.setTimeout(commandTimeout);
      connectToEveryMaster(connection);
      return new RedisConnection(client, connection, connection.sync(), connection.async(),
          "cluster of " + seeds.size() + " seeds");
    } catch (RuntimeException e) {
      client.shutdown();
      throw e;
    }
  }

  /**
   * Opens the connection to each master now rather than at its first command: with {@code REJECT_COMMANDS} that
   * first command would be refused while the connection opens, so the first calls for each master's slots would
   * fall back to the database, and a few of them in a row open a front tier's circuit breaker, turning every call
   * away from Redis for a while just after start. A master that cannot be reached now is left to the first command
   * for its slots, as before (the connection retries it; the database answers meanwhile).
   */
  private static void connectToEveryMaster(StatefulRedisClusterConnection<String, String> connection) {
    for (io.lettuce.core.cluster.models.partitions.RedisClusterNode node : connection.getPartitions()) {
      if (!node.is(io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag.UPSTREAM)) {
        continue;
      }
      try {
        connection.getConnection(node.getNodeId());
        connection.getConnection(node.getUri().getHost(), node.getUri().getPort());
      } catch (RuntimeException unreachable) {
        // As documented above: its slots connect at their first command.
      }
    }
  }

  /** @return blocking commands, each failing after the command timeout */
  RedisClusterCommands<String, String> sync() {
    return sync;
  }

  /** @return the same connection's commands that return at once (for pipelines: send all, then await) */
  RedisClusterAsyncCommands<String, String> async() {
    return async;
  }

  @Override
  public String toString() {
    return description;
  }

  /** Closes the connection, then shuts the client down; never throws (it runs at shutdown). */
  @Override
  public void close() {
    try {
      connection.close();
    } catch (RuntimeException ignored) {
      // closing anyway
    }
    try {
      client.shutdown();
    } catch (RuntimeException ignored) {
      // closing anyway
    }
  }

  /**
   * Checks a component's key prefix.
   *
   * @param prefix what every key starts with
   * @return the prefix
   * @throws IllegalArgumentException if it holds a brace, which would move the Cluster hash tag
   */
  static String checkedKeyPrefix(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
      throw new IllegalArgumentException("keyPrefix must not contain '{' or '}' (they would change the Cluster"
          + " hash tag that keeps a key's operations in one slot), got " + prefix);
    }
    return prefix;
  }

  /** {@return a positive duration} @throws IllegalArgumentException naming the setting otherwise */
  static Duration positive(Duration duration, String name) {
    if (duration == null || duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, got " + duration);
    }
    return duration;
  }
}
