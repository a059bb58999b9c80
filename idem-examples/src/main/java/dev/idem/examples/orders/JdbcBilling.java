package dev.idem.examples.orders;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.TransitionResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;

/**
 * The billing service's business code: its copy of the order (CREATED), the charge (one row per message: what the
 * fault test counts), and the transition CREATED → PAID, all in the transaction of {@link Billing}'s claim.
 */
public final class JdbcBilling implements Billing {

  private final IdemRuntime runtime;
  private final BillingFlow flow;

  /**
   * @param runtime the billing service's runtime (its own record table)
   * @param flow the generated state machine ({@code BillingFlow_Idempotent}) on that runtime
   */
  public JdbcBilling(IdemRuntime runtime, BillingFlow flow) {
    this.runtime = runtime;
    this.flow = flow;
  }

  /**
   * Creates the billing tables if absent. The charges have no unique constraint on purpose: a duplicate effect would
   * show as a second row, not as an error.
   *
   * @param dataSource the billing service's database
   */
  public static void createTables(DataSource dataSource) {
    try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
      statement.execute("CREATE TABLE IF NOT EXISTS billing_orders (id BIGINT NOT NULL PRIMARY KEY,"
          + " status VARCHAR(16) NOT NULL, version BIGINT NOT NULL)");
      statement.execute("CREATE TABLE IF NOT EXISTS billing_charges (message_id VARCHAR(64) NOT NULL,"
          + " order_id BIGINT NOT NULL, amount_cents BIGINT NOT NULL, transition VARCHAR(16) NOT NULL)");
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot create the billing tables", e);
    }
  }

  @Override
  public void onOrderCreated(String messageId, String group, OrderCreated event) {
    apply(messageId, event);
  }

  @Override
  public void onOrdersCreated(List<Delivery> batch, String group) {
    for (Delivery delivery : batch) {
      apply(delivery.messageId(), delivery.event());
    }
  }

  private void apply(String messageId, OrderCreated event) {
    Connection connection = runtime.currentConnection();
    try (PreparedStatement copy = connection.prepareStatement(
        "INSERT INTO billing_orders (id, status, version) VALUES (?, 'CREATED', 0)")) {
      copy.setLong(1, event.orderId());
      copy.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot record order " + event.orderId(), e);
    }
    // A real service would call its payment provider here, with the message id as its idempotency key.
    TransitionResult paid = flow.markPaid(event.orderId());
    try (PreparedStatement charge = connection.prepareStatement(
        "INSERT INTO billing_charges (message_id, order_id, amount_cents, transition) VALUES (?, ?, ?, ?)")) {
      charge.setString(1, messageId);
      charge.setLong(2, event.orderId());
      charge.setLong(3, event.amountCents());
      charge.setString(4, String.valueOf(paid));
      charge.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot record the charge of order " + event.orderId(), e);
    }
  }
}
