package dev.idem.examples.orders;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotentResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/** The orders service's business code: the order's row and its event, in the transaction idem runs the command in. */
public final class JdbcOrders implements Orders {

  private final IdemRuntime runtime;
  private final OrderEvents events;

  /**
   * @param runtime the orders service's runtime
   * @param events the generated outbox publisher ({@code OrderEvents_Outbox})
   */
  public JdbcOrders(IdemRuntime runtime, OrderEvents events) {
    this.runtime = runtime;
    this.events = events;
  }

  /**
   * Creates the orders table if absent.
   *
   * @param dataSource the orders service's database
   */
  public static void createTable(DataSource dataSource) {
    try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
      statement.execute("CREATE TABLE IF NOT EXISTS shop_orders (id BIGINT NOT NULL PRIMARY KEY,"
          + " client_id VARCHAR(64) NOT NULL, idempotency_key VARCHAR(128) NOT NULL,"
          + " amount_cents BIGINT NOT NULL, status VARCHAR(16) NOT NULL)");
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot create the shop_orders table", e);
    }
  }

  @Override
  public IdempotentResult<Order> create(String clientId, String idempotencyKey, NewOrder order) {
    long id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
    try (PreparedStatement insert = runtime.currentConnection().prepareStatement(
        "INSERT INTO shop_orders (id, client_id, idempotency_key, amount_cents, status) VALUES (?, ?, ?, ?, ?)")) {
      insert.setLong(1, id);
      insert.setString(2, clientId);
      insert.setString(3, idempotencyKey);
      insert.setLong(4, order.amountCents());
      insert.setString(5, "CREATED");
      insert.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot store order " + id, e);
    }
    // Same transaction: rolled back with the order, committed with it.
    events.orderCreated(new OrderCreated(id, clientId, order.amountCents()));
    return IdempotentResult.of(new Order(id, order.amountCents(), "CREATED"));
  }
}
