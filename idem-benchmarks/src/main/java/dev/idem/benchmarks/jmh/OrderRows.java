package dev.idem.benchmarks.jmh;

import dev.idem.benchmarks.jmh.BenchOrders.PlaceOrder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** The business write every benchmarked operation makes: one INSERT into {@code orders}, the same SQL everywhere. */
final class OrderRows {

  static final String INSERT =
      "INSERT INTO orders (id, customer_id, sku, quantity, total_cents) VALUES (?, ?, ?, ?, ?)";

  private OrderRows() {}

  static void bind(PreparedStatement insert, PlaceOrder order) throws SQLException {
    insert.setLong(1, order.orderId());
    insert.setString(2, order.customerId());
    insert.setString(3, order.sku());
    insert.setInt(4, order.quantity());
    insert.setLong(5, order.totalCents());
  }

  static void insert(Connection connection, PlaceOrder order) throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
      bind(insert, order);
      insert.executeUpdate();
    }
  }
}
