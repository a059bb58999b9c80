package dev.idem.examples;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IllegalStateTransitionException;
import dev.idem.runtime.TransitionListener;
import dev.idem.runtime.TransitionResult;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcConnectionPool;

/**
 * Drives an order through CREATED → PAID → SHIPPED → FINISHED on embedded H2, with a repeated payment callback
 * (no effect) and a stale "back to PROCESSING" callback (rejected):
 * {@code mvn -q -Prun-example -pl idem-examples -am verify -DskipTests -Dexample.mainClass=dev.idem.examples.OrderFlowExample}.
 */
public final class OrderFlowExample {

  /** What the run observed; the example's test asserts on it. */
  public record Outcome(TransitionResult firstPayment, TransitionResult repeatedPayment, boolean staleRejected,
                        OrderStatus finalStatus, long finalVersion, List<String> log, List<String> alarms) {}

  public static void main(String[] args) {
    JdbcConnectionPool pool = JdbcConnectionPool.create("jdbc:h2:mem:order-flow;DB_CLOSE_DELAY=-1", "sa", "");
    try {
      Outcome outcome = run(pool, System.out);
      if (outcome.repeatedPayment() != TransitionResult.ALREADY_APPLIED || !outcome.staleRejected()
          || outcome.finalStatus() != OrderStatus.FINISHED) {
        throw new IllegalStateException("the order flow was not guarded: " + outcome);
      }
    } finally {
      pool.dispose();
    }
  }

  public static Outcome run(DataSource dataSource, PrintStream out) {
    List<String> alarms = new ArrayList<>();
    IdemRuntime runtime = IdemRuntime.builder()
        .dataSource(dataSource)
        // Illegal transitions mean a caller acts on an outdated view of the order: worth an alarm.
        .transitionListener(new TransitionListener() {
          @Override
          public void rejected(String transition, String entity, Object id, String current, String reason) {
            alarms.add(transition + " rejected for " + entity + " " + id + " in " + current);
          }
        })
        .build();
    runtime.createSchema(); // idem's tables, including the transition log
    execute(dataSource, "CREATE TABLE IF NOT EXISTS purchase_orders (id BIGINT PRIMARY KEY,"
        + " status VARCHAR(16) NOT NULL, version BIGINT NOT NULL)");
    execute(dataSource, "DELETE FROM purchase_orders");
    execute(dataSource, "INSERT INTO purchase_orders (id, status, version) VALUES (1001, 'CREATED', 0)");

    // Transitions only: the generated class needs nothing but the runtime.
    OrderFlow flow = new OrderFlow_Idempotent(runtime);

    out.println("== The payment provider calls back \"paid\" twice ==");
    TransitionResult first = flow.markPaid(1001);
    TransitionResult repeated = flow.markPaid(1001);
    out.printf("first callback   : %s%nrepeated callback: %s (no effect)%n", first, repeated);

    out.println("== The warehouse ships, the carrier delivers; a late \"paid\" is still harmless ==");
    out.printf("ship: %s%n", flow.ship(1001) ? "shipped now" : "already shipped");
    flow.finish(1001);
    out.printf("late paid callback: %s%n", flow.markPaid(1001));

    out.println("== A stale \"back to PROCESSING\" callback arrives ==");
    boolean staleRejected = false;
    try {
      flow.startProcessing(1001);
    } catch (IllegalStateTransitionException e) {
      staleRejected = true;
      out.println("rejected: " + e.getMessage());
    }

    OrderStatus status;
    long version;
    List<String> log = new ArrayList<>();
    try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
      try (ResultSet row = statement.executeQuery("SELECT status, version FROM purchase_orders WHERE id = 1001")) {
        row.next();
        status = OrderStatus.valueOf(row.getString(1));
        version = row.getLong(2);
      }
      try (ResultSet rows = statement.executeQuery("SELECT transition_name, from_state, to_state"
          + " FROM idem_transition_log WHERE entity = 'PurchaseOrder' AND entity_id = '1001' ORDER BY id")) {
        while (rows.next()) {
          log.add(rows.getString(1) + ": " + rows.getString(2) + " -> " + rows.getString(3));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    out.printf("order 1001 is %s (version %d)%ntransition log:%n", status, version);
    log.forEach(line -> out.println("  " + line));
    out.println("alarms: " + alarms);
    return new Outcome(first, repeated, staleRejected, status, version, log, alarms);
  }

  private static void execute(DataSource dataSource, String sql) {
    try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }
}
