package dev.idem.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Locale;

/**
 * The databases the suites run against. Server coordinates can be overridden with system properties
 * {@code idem.<db>.url}, {@code idem.<db>.user}, {@code idem.<db>.password} ({@code db} = postgresql, mariadb).
 */
public enum TestDatabase {
  /** H2 in memory (or in files of a temporary directory), in this JVM. */
  H2("H2", null, null, null),
  /** The PostgreSQL server at {@code idem.postgresql.url}. */
  POSTGRESQL("PostgreSQL", "jdbc:postgresql://127.0.0.1:5432/test", "postgres", ""),
  /** The MariaDB server at {@code idem.mariadb.url}. */
  MARIADB("MariaDB", "jdbc:mariadb://127.0.0.1:3306/test", "root", "");

  private final String displayName;
  private final String defaultUrl;
  private final String defaultUser;
  private final String defaultPassword;

  TestDatabase(String displayName, String defaultUrl, String defaultUser, String defaultPassword) {
    this.displayName = displayName;
    this.defaultUrl = defaultUrl;
    this.defaultUser = defaultUser;
    this.defaultPassword = defaultPassword;
  }

  /** @return the name people use, e.g. {@code PostgreSQL} */
  public String displayName() {
    return displayName;
  }

  /**
   * @param name a display name (as in a JMH parameter) or constant name, in any case
   * @return the database of that name
   */
  public static TestDatabase of(String name) {
    for (TestDatabase database : values()) {
      if (database.displayName.equalsIgnoreCase(name.strip()) || database.name().equalsIgnoreCase(name.strip())) {
        return database;
      }
    }
    throw new IllegalArgumentException("Unknown database '" + name + "'; known: H2, PostgreSQL, MariaDB");
  }

  /** @return null if the server answers (H2 always does), else why not; for callers that leave it out with a note */
  public String unreachableReason() {
    if (this == H2) {
      return null;
    }
    try (Connection connection = DriverManager.getConnection(adminUrl(), user(), password())) {
      return connection.isValid(5) ? null : displayName + " at " + adminUrl() + ": the connection is not valid";
    } catch (SQLException e) {
      return displayName + " at " + adminUrl() + ": " + e.getMessage();
    }
  }

  /** URL of the server's existing database used to create and drop isolated ones. */
  String adminUrl() {
    return System.getProperty("idem." + name().toLowerCase(Locale.ROOT) + ".url", defaultUrl);
  }

  String user() {
    return System.getProperty("idem." + name().toLowerCase(Locale.ROOT) + ".user", defaultUser);
  }

  String password() {
    return System.getProperty("idem." + name().toLowerCase(Locale.ROOT) + ".password", defaultPassword);
  }
}
