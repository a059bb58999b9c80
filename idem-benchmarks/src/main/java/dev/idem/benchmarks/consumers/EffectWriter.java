package dev.idem.benchmarks.consumers;

import dev.idem.runtime.IdemRuntime;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/** The business write every variant does: one INSERT per processed message, in the dedup's transaction. */
final class EffectWriter implements PaymentConsumers {

  static final String INSERT = "INSERT INTO effects (message_id, order_id, amount_cents) VALUES (?, ?, ?)";

  private final IdemRuntime runtime;

  EffectWriter(IdemRuntime runtime) {
    this.runtime = runtime;
  }

  @Override
  public void onPayment(Payment payment, String group) {
    try (PreparedStatement insert = runtime.currentConnection().prepareStatement(INSERT)) {
      bind(insert, payment);
      insert.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void onPayments(List<Payment> batch, String group) {
    // Still one INSERT per message; the JDBC batch only saves round trips.
    try (PreparedStatement insert = runtime.currentConnection().prepareStatement(INSERT)) {
      for (Payment payment : batch) {
        bind(insert, payment);
        insert.addBatch();
      }
      insert.executeBatch();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  static void bind(PreparedStatement insert, Payment payment) throws SQLException {
    insert.setString(1, payment.messageId());
    insert.setLong(2, payment.orderId());
    insert.setLong(3, payment.amountCents());
  }
}
