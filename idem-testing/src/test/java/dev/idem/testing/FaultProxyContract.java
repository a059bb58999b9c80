package dev.idem.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.testing.FaultProxy.Fault;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The proxy against the real drivers and servers: each fault does what it says to a plain JDBC connection, which
 * also checks what the drivers send (pgjdbc's and Connector/J's {@code commit()} carry the text {@code COMMIT}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
abstract class FaultProxyContract {

  private IsolatedDatabase database;
  private FaultProxy proxy;

  abstract TestDatabase database();

  @BeforeAll
  void open() {
    database = IsolatedDatabase.open(database());
    database.execute("CREATE TABLE proxied (id INT PRIMARY KEY)");
  }

  @AfterAll
  void close() {
    if (database != null) {
      database.close();
    }
  }

  @BeforeEach
  void startProxy() {
    database.execute("DELETE FROM proxied");
    proxy = FaultProxy.inFrontOf(database.url(), 8);
  }

  @AfterEach
  void stopProxy() {
    proxy.close();
    assertEquals(0, proxy.openConnections(), "close() cuts every connection");
  }

  private Connection throughProxy() throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", database.user());
    properties.setProperty("password", database.password());
    return DriverManager.getConnection(proxy.route(database.url()), properties);
  }

  private int rows() throws SQLException {
    try (Connection direct = database.dataSource().getConnection();
         Statement statement = direct.createStatement();
         ResultSet count = statement.executeQuery("SELECT COUNT(*) FROM proxied")) {
      count.next();
      return count.getInt(1);
    }
  }

  @Test
  void forwardsNormally() throws SQLException {
    try (Connection connection = throughProxy(); Statement statement = connection.createStatement()) {
      statement.executeUpdate("INSERT INTO proxied (id) VALUES (1)");
      try (ResultSet one = statement.executeQuery("SELECT id FROM proxied")) {
        assertTrue(one.next());
        assertEquals(1, one.getInt(1));
      }
    }
    assertEquals(0, proxy.faultsInjected());
  }

  @Test
  void aLostCommitAcknowledgementFailsTheCallerButTheWorkIsCommitted() throws SQLException {
    try (Connection connection = throughProxy(); Statement statement = connection.createStatement()) {
      connection.setAutoCommit(false);
      statement.executeUpdate("INSERT INTO proxied (id) VALUES (2)");
      proxy.loseReplyTo("COMMIT");
      assertThrows(SQLException.class, connection::commit);
    }
    assertEquals(1, proxy.faults(Fault.LOST_REPLY), "the driver's commit() carried the text COMMIT");
    assertEquals(1, rows(), "the server committed before its reply was dropped");
  }

  @Test
  void aLostReplyToAStatementInAutoCommitModeHidesAnExecutedStatement() throws SQLException {
    try (Connection connection = throughProxy();
         var insert = connection.prepareStatement("INSERT INTO proxied (id) VALUES (?)")) {
      insert.setInt(1, 3);
      proxy.loseReplyTo("INSERT INTO proxied");
      assertThrows(SQLException.class, insert::executeUpdate);
    }
    assertEquals(1, rows());
  }

  @Test
  void aCutMidStatementNeverReachesTheServer() throws SQLException {
    try (Connection connection = throughProxy();
         var insert = connection.prepareStatement("INSERT INTO proxied (id) VALUES (?)")) {
      insert.setInt(1, 4);
      proxy.cutMidStatement("INSERT INTO proxied");
      assertThrows(SQLException.class, insert::executeUpdate);
    }
    assertEquals(1, proxy.faults(Fault.CUT_MID_STATEMENT));
    assertEquals(0, rows());
  }

  @Test
  void cutAllBreaksOpenConnectionsAndNewOnesWork() throws SQLException {
    try (Connection first = throughProxy(); Connection second = throughProxy()) {
      assertEquals(2, proxy.openConnections());
      proxy.cutAll();
      assertThrows(SQLException.class, () -> first.createStatement().executeQuery("SELECT 1"));
      assertThrows(SQLException.class, () -> second.createStatement().executeQuery("SELECT 1"));
    }
    try (Connection fresh = throughProxy(); Statement statement = fresh.createStatement()) {
      statement.executeQuery("SELECT 1").close();
    }
  }

  @Test
  void refusedConnectionsFailUntilHealedWhileOpenOnesKeepWorking() throws SQLException {
    try (Connection open = throughProxy()) {
      proxy.refuseNewConnections(true);
      assertThrows(SQLException.class, this::throughProxy);
      open.createStatement().executeQuery("SELECT 1").close();
      proxy.heal();
      throughProxy().close();
    }
    assertEquals(1, proxy.faults(Fault.REFUSED));
  }

  @Test
  void randomCutsCutAtTheGivenProbability() throws SQLException {
    try (Connection connection = throughProxy()) {
      proxy.randomCuts(42, 1.0);
      assertThrows(SQLException.class, () -> connection.createStatement().executeQuery("SELECT 1"));
      proxy.randomCuts(42, 0);
    }
    assertEquals(1, proxy.faults(Fault.RANDOM_CUT));
    try (Connection connection = throughProxy()) {
      for (int i = 0; i < 20; i++) {
        connection.createStatement().executeQuery("SELECT 1").close();
      }
    }
    assertEquals(1, proxy.faults(Fault.RANDOM_CUT), "probability 0 forwards everything");
  }

  @Test
  void aFragmentSentEarlierOnTheSameConnectionDoesNotFireLater() throws SQLException {
    try (Connection connection = throughProxy(); Statement statement = connection.createStatement()) {
      statement.executeQuery("SELECT 'MARKER'").close();
      proxy.loseReplyTo("MARKER");
      statement.executeQuery("SELECT 1").close();
      assertTrue(proxy.armed(), "only a packet holding the fragment fires it");
      assertThrows(SQLException.class, () -> statement.executeQuery("SELECT 'MARKER'"));
    }
    assertEquals(1, proxy.faults(Fault.LOST_REPLY));
  }

  @Test
  void onlyProxiesTheLoopbackAddress() {
    assertThrows(IllegalArgumentException.class,
        () -> FaultProxy.inFrontOf("jdbc:postgresql://db.example.com:5432/test", 1));
  }
}
