package dev.idem.cli;

import java.util.Map;
import picocli.CommandLine.Option;

/**
 * Where idem's table is (or, with {@code --redis}, the Redis of {@code store = Store.REDIS} records): a mixin of the
 * root command and of every subcommand, so that the options may come before or after the subcommand
 * ({@code idem --url ... stats} and {@code idem stats --url ...}); a subcommand's own value wins. Unset options fall
 * back to the environment ({@code IDEM_URL}, {@code IDEM_USER}, {@code IDEM_PASSWORD}, {@code IDEM_TABLE},
 * {@code IDEM_REDIS}, {@code IDEM_REDIS_PREFIX}). The password is never printed: no default is shown in the help, and
 * messages mask it (a password in the Redis URI too).
 */
final class ConnectionOptions {

  @Option(names = "--url", paramLabel = "JDBC_URL",
      description = "The database's JDBC URL (H2, PostgreSQL, MariaDB); default: $IDEM_URL")
  String url;

  @Option(names = "--user", paramLabel = "USER", description = "The database user; default: $IDEM_USER")
  String user;

  @Option(names = "--password", paramLabel = "PASSWORD", arity = "0..1", interactive = true,
      description = "The user's password; default: $IDEM_PASSWORD. Without a value it is asked for on the console"
          + " (prefer that or the variable: a value here is visible to other users in the process list)")
  char[] password;

  @Option(names = "--table", paramLabel = "TABLE",
      description = "The records' table, as the runtime's builder names it (tableName); default: $IDEM_TABLE, else"
          + " idem_record")
  String table;

  @Option(names = "--redis", paramLabel = "URI",
      description = "Work on the records of store = Store.REDIS commands, which live in this Redis"
          + " (redis://host:port, rediss:// for TLS) instead of the database; default: $IDEM_REDIS")
  String redis;

  @Option(names = "--redis-cluster", description = "--redis names a node of a Redis Cluster")
  boolean redisCluster;

  @Option(names = "--redis-prefix", paramLabel = "PREFIX",
      description = "The Redis record store's keyPrefix; default: $IDEM_REDIS_PREFIX, else idem-store:")
  String redisPrefix;

  @Option(names = "--json", description = "Print JSON for scripts instead of tables")
  boolean json;

  @Option(names = "--verbose", description = "Show the stack trace of errors")
  boolean verbose;

  /** These options where set, else {@code outer}'s (the root command's), else the environment's. */
  Resolved resolve(ConnectionOptions outer, Map<String, String> env) {
    String password = this.password != null ? new String(this.password)
        : outer != null && outer.password != null ? new String(outer.password) : env.get("IDEM_PASSWORD");
    return new Resolved(
        first(url, outer == null ? null : outer.url, env.get("IDEM_URL")),
        first(user, outer == null ? null : outer.user, env.get("IDEM_USER")),
        password,
        first(table, outer == null ? null : outer.table, env.get("IDEM_TABLE"), "idem_record"),
        first(redis, outer == null ? null : outer.redis, env.get("IDEM_REDIS")),
        redisCluster || outer != null && outer.redisCluster,
        first(redisPrefix, outer == null ? null : outer.redisPrefix, env.get("IDEM_REDIS_PREFIX"), "idem-store:"),
        json || outer != null && outer.json,
        verbose || outer != null && outer.verbose);
  }

  private static String first(String... values) {
    for (String value : values) {
      if (value != null && !value.isEmpty()) {
        return value;
      }
    }
    return null;
  }

  /** The settings in effect. */
  record Resolved(String url, String user, String password, String table, String redis, boolean redisCluster,
                  String redisPrefix, boolean json, boolean verbose) {

    /** @return whether the command works on Redis-only records (--redis) rather than the database's table */
    boolean onRedis() {
      return redis != null;
    }

    /** @return the password in the Redis URI, to mask in messages; null if none */
    String redisPassword() {
      if (redis == null) {
        return null;
      }
      try {
        // redis://[user:]password@host: without a colon the user info is the password, as Lettuce reads it.
        String userInfo = java.net.URI.create(redis).getUserInfo();
        String secret = userInfo == null ? null : userInfo.substring(userInfo.indexOf(':') + 1);
        return secret == null || secret.isEmpty() ? null : secret;
      } catch (IllegalArgumentException unreadable) {
        return null;
      }
    }

    /** @return where the records are, for messages */
    String where() {
      return onRedis() ? "Redis " + Secrets.maskUrl(redis) + " (prefix " + redisPrefix + ")" : table;
    }

    @Override
    public String toString() {
      return "Resolved[url=" + Secrets.maskUrl(url) + ", user=" + user + ", table=" + table + ", redis="
          + Secrets.maskUrl(redis) + "]";
    }
  }
}
