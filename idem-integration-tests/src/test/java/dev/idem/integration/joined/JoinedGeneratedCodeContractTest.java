package dev.idem.integration.joined;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.integration.migrations.Ledger;
import dev.idem.integration.migrations.Ledger_Idempotent;
import dev.idem.integration.transitions.PaymentFlow;
import dev.idem.integration.transitions.PaymentFlow_Idempotent;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.TransitionResult;
import dev.idem.testing.DatabaseContract;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Generated commands and transitions inside the application's own plain JDBC transaction
 * ({@link IdemRuntime#withConnection}): they commit and roll back with it. The subclasses pick the database.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
abstract class JoinedGeneratedCodeContractTest extends DatabaseContract {

  private IdemRuntime runtime;
  private final AtomicInteger credits = new AtomicInteger();
  private Ledger ledger;
  private PaymentFlow payments;

  @Override
  protected void prepare() {
    runtime = IdemRuntime.builder().dataSource(counting).logTransitions(true).build();
    runtime.createSchema();
    database.execute("CREATE TABLE ledger (request_id VARCHAR(64) NOT NULL, amount BIGINT NOT NULL)",
        "CREATE TABLE payments (id BIGINT PRIMARY KEY, payment_state VARCHAR(16) NOT NULL,"
            + " row_version BIGINT NOT NULL)");
    ledger = new Ledger_Idempotent(new Ledger() {
      @Override
      public String credit(String requestId, long amount) {
        credits.incrementAndGet();
        try (PreparedStatement insert = runtime.currentConnection()
            .prepareStatement("INSERT INTO ledger (request_id, amount) VALUES (?, ?)")) {
          insert.setString(1, requestId);
          insert.setLong(2, amount);
          insert.executeUpdate();
        } catch (SQLException e) {
          throw new IllegalStateException(e);
        }
        return "credited " + amount;
      }

      @Override
      public String notifyCustomer(String messageId, String text) {
        return "sent";
      }
    }, runtime);
    payments = new PaymentFlow_Idempotent(runtime);
  }

  @BeforeEach
  void clear() {
    database.execute("DELETE FROM idem_record", "DELETE FROM idem_transition_log", "DELETE FROM ledger",
        "DELETE FROM payments", "INSERT INTO payments (id, payment_state, row_version) VALUES (1, 'NEW', 0)");
    runtime.clearResultCache();
    credits.set(0);
  }

  private long count(String sql) {
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The command, the transition and a write of the application's own, in one transaction of the application. */
  private void inApplicationTransaction(Connection connection) throws Exception {
    runtime.runWithConnection(connection, c -> {
      // The application locks the payment row first; the transition updates it on the same connection.
      try (Statement own = connection.createStatement()) {
        own.executeUpdate("UPDATE payments SET row_version = row_version WHERE id = 1");
      }
      assertEquals("credited 7", ledger.credit("r-1", 7));
      assertEquals(TransitionResult.APPLIED, payments.authorize(1L));
    });
  }

  @Test
  void aRollbackOfTheApplicationsTransactionUndoesCommandTransitionAndLog() throws Exception {
    try (Connection connection = counting.getConnection()) {
      connection.setAutoCommit(false);
      inApplicationTransaction(connection);
      connection.rollback();
      connection.setAutoCommit(true);
    }
    assertEquals(0, count("SELECT COUNT(*) FROM idem_record"));
    assertEquals(0, count("SELECT COUNT(*) FROM ledger"));
    assertEquals(0, count("SELECT COUNT(*) FROM idem_transition_log"));
    assertEquals(1, count("SELECT COUNT(*) FROM payments WHERE payment_state = 'NEW'"));
  }

  @Test
  void aCommitOfTheApplicationsTransactionKeepsThemAllAndARetryReplays() throws Exception {
    try (Connection connection = counting.getConnection()) {
      connection.setAutoCommit(false);
      inApplicationTransaction(connection);
      connection.commit();
      connection.setAutoCommit(true);
    }
    assertEquals(1, count("SELECT COUNT(*) FROM idem_record"));
    assertEquals(1, count("SELECT COUNT(*) FROM ledger"));
    assertEquals(1, count("SELECT COUNT(*) FROM idem_transition_log"));
    assertEquals(1, count("SELECT COUNT(*) FROM payments WHERE payment_state = 'AUTHORIZED'"));
    assertEquals("credited 7", ledger.credit("r-1", 7));
    assertEquals(TransitionResult.ALREADY_APPLIED, payments.authorize(1L));
    assertEquals(1, credits.get());
  }

  @Test
  void aClaimCommandRefusesToJoin() throws Exception {
    try (Connection connection = counting.getConnection()) {
      connection.setAutoCommit(false);
      IllegalStateException refused = assertThrows(IllegalStateException.class,
          () -> runtime.withConnection(connection, c -> ledger.notifyCustomer("m-1", "hi")));
      assertTrue(refused.getMessage().contains("claim must commit before its work starts"), refused.getMessage());
      connection.rollback();
      connection.setAutoCommit(true);
    }
    assertEquals("sent", ledger.notifyCustomer("m-1", "hi"));
  }
}
