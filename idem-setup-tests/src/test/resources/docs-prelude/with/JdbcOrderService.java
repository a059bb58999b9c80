/** The README's delegate (its Setup), for blocks that use it. */
public final class JdbcOrderService implements OrderService {
  private final IdemRuntime runtime;

  public JdbcOrderService(IdemRuntime runtime) {
    this.runtime = runtime;
  }

  @Override
  public Order createOrder(String requestId, CreateOrder command) {
    long total = command.unitPriceCents() * command.quantity();
    String insert = "INSERT INTO orders (customer_id, sku, quantity, total_cents) VALUES (?, ?, ?, ?)";
    try (PreparedStatement statement =
             runtime.currentConnection().prepareStatement(insert, new String[] {"order_id"})) {
      statement.setString(1, command.customerId());
      statement.setString(2, command.sku());
      statement.setInt(3, command.quantity());
      statement.setLong(4, total);
      statement.executeUpdate();
      try (ResultSet keys = statement.getGeneratedKeys()) {
        keys.next();
        return new Order(keys.getLong(1), command.customerId(), command.sku(), command.quantity(), total);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not insert the order", e);   // rolls back the order and the claim
    }
  }
}
