package dev.idem.runtime;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * The databases idem speaks to. Set one with {@link IdemRuntime.Builder#dialect(Dialect)}, or let
 * {@link IdemRuntime.Builder#build()} detect it from the JDBC metadata.
 */
public enum Dialect {

  /** H2 2.x. */
  H2("H2"),
  /** PostgreSQL 9.5 and later. */
  POSTGRESQL("PostgreSQL"),
  /** MariaDB and MySQL (InnoDB). */
  MARIADB("MariaDB/MySQL");

  private final String displayName;

  Dialect(String displayName) {
    this.displayName = displayName;
  }

  /** @return the database's name as people write it, e.g. {@code "PostgreSQL"} */
  public String displayName() {
    return displayName;
  }

  @Override
  public String toString() {
    return displayName;
  }

  /**
   * The dialect for a {@code DatabaseMetaData.getDatabaseProductName()}.
   *
   * @param productName the product name
   * @return the dialect, or null if idem does not know the database
   */
  public static Dialect forProductName(String productName) {
    String product = productName == null ? "" : productName.toLowerCase(Locale.ROOT);
    if (product.equals("h2")) {
      return H2;
    }
    if (product.equals("postgresql")) {
      return POSTGRESQL;
    }
    if (product.equals("mariadb") || product.equals("mysql")) {
      return MARIADB;
    }
    return null;
  }

  /** Detects the dialect of the data source from its database product name; takes one connection. */
  static Dialect detect(DataSource dataSource) {
    String product;
    try (Connection connection = dataSource.getConnection()) {
      product = connection.getMetaData().getDatabaseProductName();
    } catch (SQLException e) {
      throw new IdempotencyStoreException("Cannot detect the database dialect", e);
    }
    Dialect detected = forProductName(product);
    if (detected == null) {
      throw new IllegalStateException("idem does not know the database '" + product
          + "'; set a dialect explicitly: IdemRuntime.builder().dialect(Dialect.POSTGRESQL) "
          + "(Dialect.H2, Dialect.POSTGRESQL or Dialect.MARIADB)");
    }
    return detected;
  }
}
