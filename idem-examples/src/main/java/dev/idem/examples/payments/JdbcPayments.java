package dev.idem.examples.payments;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotentResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/** The business code behind {@link Payments}: plain JDBC in the transaction idem runs the command in. */
public final class JdbcPayments implements Payments {

  private final IdemRuntime runtime;
  private final DataSource dataSource;

  /**
   * @param runtime the runtime, whose transaction carries the payment's row
   * @param dataSource the database, for reads
   */
  public JdbcPayments(IdemRuntime runtime, DataSource dataSource) {
    this.runtime = runtime;
    this.dataSource = dataSource;
  }

  /**
   * Creates the payments table if absent.
   *
   * @param dataSource the database
   */
  public static void createTable(DataSource dataSource) {
    try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
      statement.execute("CREATE TABLE IF NOT EXISTS payments (id VARCHAR(40) NOT NULL PRIMARY KEY,"
          + " client_id VARCHAR(64) NOT NULL, amount_cents BIGINT NOT NULL, currency VARCHAR(3) NOT NULL)");
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot create the payments table", e);
    }
  }

  @Override
  public IdempotentResult<Payment> create(String clientId, String idempotencyKey, NewPayment payment) {
    // A real service would call its payment gateway here, passing the key on.
    Payment created = new Payment("pay_" + UUID.randomUUID().toString().replace("-", ""), payment.amountCents(),
        payment.currency());
    try (PreparedStatement insert = runtime.currentConnection().prepareStatement(
        "INSERT INTO payments (id, client_id, amount_cents, currency) VALUES (?, ?, ?, ?)")) {
      insert.setString(1, created.id());
      insert.setString(2, clientId);
      insert.setLong(3, created.amountCents());
      insert.setString(4, created.currency());
      insert.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot store payment " + created.id(), e);
    }
    return IdempotentResult.of(created);
  }

  @Override
  public Optional<Payment> find(String clientId, String id) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement select = connection.prepareStatement(
            "SELECT amount_cents, currency FROM payments WHERE id = ? AND client_id = ?")) {
      select.setString(1, id);
      select.setString(2, clientId);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? Optional.of(new Payment(id, rs.getLong(1), rs.getString(2))) : Optional.empty();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot read payment " + id, e);
    }
  }
}
