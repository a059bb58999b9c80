package dev.idem.benchmarks.jmh;

import java.util.Locale;

/**
 * The databases the suite runs against. Server coordinates can be overridden with system properties
 * {@code bench.<name>.url|user|password} (name = postgresql, mariadb), like the test suites' {@code idem.*} ones.
 */
public enum Database {
  /** Embedded, file-backed: commits reach a file on disk, not only memory. */
  H2("H2", null, null, null),
  POSTGRESQL("PostgreSQL", "jdbc:postgresql://127.0.0.1:5432/test", "postgres", ""),
  MARIADB("MariaDB", "jdbc:mariadb://127.0.0.1:3306/test", "root", "");

  private final String displayName;
  private final String defaultUrl;
  private final String defaultUser;
  private final String defaultPassword;

  Database(String displayName, String defaultUrl, String defaultUser, String defaultPassword) {
    this.displayName = displayName;
    this.defaultUrl = defaultUrl;
    this.defaultUser = defaultUser;
    this.defaultPassword = defaultPassword;
  }

  public String displayName() {
    return displayName;
  }

  /** @return the constant whose display name (as in JMH's {@code database} parameter) or name matches */
  public static Database of(String name) {
    for (Database database : values()) {
      if (database.displayName.equalsIgnoreCase(name.strip()) || database.name().equalsIgnoreCase(name.strip())) {
        return database;
      }
    }
    throw new IllegalArgumentException("Unknown database '" + name + "'; known: H2, PostgreSQL, MariaDB");
  }

  String adminUrl() {
    return property("url", defaultUrl);
  }

  String user() {
    return property("user", defaultUser);
  }

  String password() {
    return property("password", defaultPassword);
  }

  private String property(String what, String fallback) {
    return System.getProperty("bench." + name().toLowerCase(Locale.ROOT) + "." + what, fallback);
  }
}
