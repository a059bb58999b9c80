package dev.idem.testsupport;

/**
 * The databases the suites run against. Server coordinates can be overridden with system properties
 * {@code idem.<db>.url}, {@code idem.<db>.user}, {@code idem.<db>.password} ({@code db} = postgresql, mariadb).
 */
public enum TestDatabase {
  H2("H2", null, null, null),
  POSTGRESQL("PostgreSQL", "jdbc:postgresql://127.0.0.1:5432/test", "postgres", ""),
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

  public String displayName() {
    return displayName;
  }

  /** URL of the server's existing database used to create and drop isolated ones. */
  String adminUrl() {
    return System.getProperty("idem." + name().toLowerCase() + ".url", defaultUrl);
  }

  String user() {
    return System.getProperty("idem." + name().toLowerCase() + ".user", defaultUser);
  }

  String password() {
    return System.getProperty("idem." + name().toLowerCase() + ".password", defaultPassword);
  }
}
