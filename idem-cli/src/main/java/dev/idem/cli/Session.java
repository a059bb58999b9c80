package dev.idem.cli;

import dev.idem.redis.RedisRecordAdmin;
import dev.idem.runtime.IdemAdmin;
import dev.idem.runtime.IdemRuntime;
import io.lettuce.core.RedisURI;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.List;
import java.util.Properties;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * One run's connection settings and the runtime over them: no pool (each operation opens and closes its own
 * connection through {@link DriverManager}), no result cache, the table the options name.
 */
final class Session {

  private final ConnectionOptions.Resolved options;
  private IdemAdmin admin;

  Session(ConnectionOptions.Resolved options) {
    this.options = options;
  }

  ConnectionOptions.Resolved options() {
    return options;
  }

  /** The runtime's operator calls; connects (to detect the dialect) on first use. */
  IdemAdmin admin() {
    if (admin == null) {
      requireNoRedis();
      if (options.url() == null) {
        throw new CliException(ExitCodes.USAGE, "No database: give --url JDBC_URL or set IDEM_URL");
      }
      IdemRuntime runtime;
      try {
        runtime = IdemRuntime.builder().dataSource(new PlainDataSource(options)).tableName(options.table())
            .resultCache(false).build();
      } catch (IllegalArgumentException e) {
        throw new CliException(ExitCodes.USAGE, e.getMessage(), e);
      }
      admin = IdemAdmin.of(runtime);
    }
    return admin;
  }

  /** Purge, stats and partitions work on the database's table; Redis-only records expire by themselves. */
  private void requireNoRedis() {
    if (options.onRedis()) {
      throw new CliException(ExitCodes.USAGE, "This command works on the database's table; --redis (IDEM_REDIS)"
          + " works with inspect, inflight, forget and resolve (Redis-only records expire by themselves)");
    }
  }

  /**
   * Connects to the Redis of {@code --redis}, for the records of {@code store = Store.REDIS} commands; the caller
   * closes it.
   */
  RedisRecordAdmin openRedisAdmin() {
    if (!options.onRedis()) {
      throw new CliException(ExitCodes.USAGE, "No Redis: give --redis URI or set IDEM_REDIS");
    }
    RedisURI uri;
    RedisRecordAdmin.Builder builder;
    try {
      uri = RedisURI.create(options.redis());
      builder = RedisRecordAdmin.builder().keyPrefix(options.redisPrefix());
    } catch (IllegalArgumentException e) {
      throw new CliException(ExitCodes.USAGE, "--redis " + Secrets.maskUrl(options.redis()) + " / --redis-prefix "
          + options.redisPrefix() + ": " + e.getMessage(), e);
    }
    return options.redisCluster() ? builder.connectCluster(List.of(uri)) : builder.connect(uri);
  }

  /**
   * A runtime on the day-partitioned table of the options, for the {@code partitions} command; built on each call.
   *
   * @param keepAfterDedupWindow how long records stay after their dedup window (the archive horizon)
   * @param archiveSchema where past days go instead of being dropped, or null
   */
  IdemRuntime dayPartitioned(java.time.Duration keepAfterDedupWindow, String archiveSchema) {
    requireNoRedis();
    if (options.url() == null) {
      throw new CliException(ExitCodes.USAGE, "No database: give --url JDBC_URL or set IDEM_URL");
    }
    try {
      IdemRuntime.Builder builder = IdemRuntime.builder().dataSource(new PlainDataSource(options))
          .tableName(options.table()).layout(dev.idem.runtime.RecordLayout.DAY_PARTITIONS)
          .keepAfterDedupWindow(keepAfterDedupWindow).resultCache(false);
      if (archiveSchema != null) {
        builder.archivePartitionsTo(archiveSchema);
      }
      return builder.build();
    } catch (IllegalArgumentException e) {
      throw new CliException(ExitCodes.USAGE, e.getMessage(), e);
    }
  }

  /** What the CLI connects through: {@link DriverManager}, the URL, user and password of the options. */
  private static final class PlainDataSource implements DataSource {
    private final ConnectionOptions.Resolved options;
    private PrintWriter logWriter;
    private int loginTimeout;

    PlainDataSource(ConnectionOptions.Resolved options) {
      this.options = options;
    }

    @Override
    public Connection getConnection() throws SQLException {
      return getConnection(options.user(), options.password());
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
      Properties properties = new Properties();
      if (user != null) {
        properties.setProperty("user", user);
      }
      if (password != null) {
        properties.setProperty("password", password);
      }
      return DriverManager.getConnection(options.url(), properties);
    }

    @Override
    public PrintWriter getLogWriter() {
      return logWriter;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
      this.logWriter = out;
    }

    @Override
    public void setLoginTimeout(int seconds) {
      this.loginTimeout = seconds;
    }

    @Override
    public int getLoginTimeout() {
      return loginTimeout;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
      throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
      if (type.isInstance(this)) {
        return type.cast(this);
      }
      throw new SQLException("Not a wrapper of " + type.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
      return type.isInstance(this);
    }
  }
}
