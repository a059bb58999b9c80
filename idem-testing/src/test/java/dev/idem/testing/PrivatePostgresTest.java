package dev.idem.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The private server really crashes on {@link PrivatePostgres#kill()} and recovers what was committed. */
@Timeout(value = 90, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PrivatePostgresTest {

  @Test
  void killMinusNineLosesOpenTransactionsAndRestartRecoversCommittedOnes() throws SQLException {
    Path data;
    try (PrivatePostgres server = PrivatePostgres.start()) {
      data = server.dataDirectory();
      assertNotEquals(5432, server.port(), "never the shared server");
      try (Connection connection = connect(server); Statement statement = connection.createStatement()) {
        statement.execute("CREATE TABLE crash (id INT PRIMARY KEY)");
        statement.execute("INSERT INTO crash VALUES (1)");
      }
      Connection open = connect(server);
      open.setAutoCommit(false);
      open.createStatement().execute("INSERT INTO crash VALUES (2)");

      server.kill();
      assertFalse(server.running());
      assertThrows(SQLException.class, () -> open.createStatement().execute("SELECT 1"));
      assertThrows(SQLException.class, () -> connect(server));

      server.restart();
      assertTrue(server.running());
      try (Connection connection = connect(server); Statement statement = connection.createStatement();
           ResultSet ids = statement.executeQuery("SELECT string_agg(id::text, ',') FROM crash")) {
        ids.next();
        assertEquals("1", ids.getString(1), "the committed row survived, the open transaction did not");
      }
      open.close();
    }
    assertFalse(Files.exists(data), "close() deletes the data directory");
  }

  private static Connection connect(PrivatePostgres server) throws SQLException {
    return DriverManager.getConnection(server.url() + "?connectTimeout=5&socketTimeout=10", PrivatePostgres.USER, "");
  }
}
