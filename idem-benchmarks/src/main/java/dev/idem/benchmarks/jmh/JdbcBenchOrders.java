package dev.idem.benchmarks.jmh;

import dev.idem.runtime.IdemRuntime;
import java.sql.SQLException;

/** The user's own implementation behind the generated wrapper: writes the order through idem's transaction. */
final class JdbcBenchOrders implements BenchOrders {

  private final IdemRuntime runtime;

  JdbcBenchOrders(IdemRuntime runtime) {
    this.runtime = runtime;
  }

  @Override
  public OrderReceipt placeOrder(String requestId, PlaceOrder command) {
    write(command);
    return new OrderReceipt(command.orderId(), command.totalCents());
  }

  @Override
  public OrderReceipt placeOrderClaimed(String requestId, PlaceOrder command) {
    return placeOrder(requestId, command);
  }

  @Override
  public OrderReceipt placeOrderLookingUp(String requestId, PlaceOrder command) {
    return placeOrder(requestId, command);
  }

  @Override
  public void recordOrder(String requestId, PlaceOrder command) {
    write(command);
  }

  private void write(PlaceOrder command) {
    try {
      OrderRows.insert(runtime.currentConnection(), command);
    } catch (SQLException e) {
      throw new IllegalStateException("Order insert failed", e);
    }
  }
}
