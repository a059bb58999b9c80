package dev.idem.cli;

import java.util.Map;
import picocli.CommandLine.Option;

/**
 * Where idem's table is: a mixin of the root command and of every subcommand, so that the options may come before
 * or after the subcommand ({@code idem --url ... stats} and {@code idem stats --url ...}); a subcommand's own value
 * wins. Unset options fall back to the environment ({@code IDEM_URL}, {@code IDEM_USER}, {@code IDEM_PASSWORD},
 * {@code IDEM_TABLE}). The password is never printed: no default is shown in the help, and messages mask it.
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
  record Resolved(String url, String user, String password, String table, boolean json, boolean verbose) {

    @Override
    public String toString() {
      return "Resolved[url=" + Secrets.maskUrl(url) + ", user=" + user + ", table=" + table + "]";
    }
  }
}
