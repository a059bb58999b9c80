package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.testing.IsolatedDatabase;
import dev.idem.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The MariaDB suites run twice (idem-runtime's pom): through MariaDB Connector/J, and through MySQL Connector/J
 * with {@code idem.mariadb.url} set to a {@code jdbc:mysql:} URL. This pins that each run really talks through
 * the driver its URL names, so that a second run which quietly fell back to the first driver cannot pass as
 * coverage of the other.
 */
class MariaDbDriverTest {

  @Test
  void theSuiteTalksThroughTheDriverItsUrlNames() throws SQLException {
    try (IsolatedDatabase database = IsolatedDatabase.open(TestDatabase.MARIADB);
         Connection connection = database.dataSource().getConnection()) {
      String driver = connection.getMetaData().getDriverName().toLowerCase(Locale.ROOT);
      String expected = database.url().startsWith("jdbc:mysql:") ? "mysql connector/j" : "mariadb connector/j";
      assertTrue(driver.startsWith(expected), "the driver of " + database.url() + " is " + driver);
      System.out.println("MariaDB suites through " + connection.getMetaData().getDriverName() + " "
          + connection.getMetaData().getDriverVersion() + " (" + database.url() + ")");
    }
  }
}
