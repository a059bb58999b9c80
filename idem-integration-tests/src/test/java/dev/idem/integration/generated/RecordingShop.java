package dev.idem.integration.generated;

import dev.idem.runtime.IdemRuntime;
import java.math.BigDecimal;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * The delegate: every call writes one row to {@code executions} through the runtime's connection, so that the
 * table counts committed executions, and the field counts calls (committed or not).
 */
final class RecordingShop implements ShopCommands {

  private final IdemRuntime runtime;
  volatile boolean outOfStock;

  RecordingShop(IdemRuntime runtime) {
    this.runtime = runtime;
  }

  private void record(String what) {
    try (PreparedStatement insert =
             runtime.currentConnection().prepareStatement("INSERT INTO executions (what) VALUES (?)")) {
      insert.setString(1, what);
      insert.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public Receipt pay(String requestId, long amountCents, List<String> tags) {
    record("pay " + requestId);
    return new Receipt("p-" + requestId, amountCents, tags);
  }

  @Override
  public List<Receipt> refunds(UUID refundId, Channel channel) {
    record("refunds " + refundId);
    return List.of(new Receipt("r1-" + channel, 100, List.of()), new Receipt("r2-" + channel, 200, List.of("x")));
  }

  @Override
  public Optional<Customer> findCustomer(long customerId) {
    record("findCustomer " + customerId);
    return customerId % 2 == 0 ? Optional.of(new Customer(customerId, "c" + customerId)) : Optional.empty();
  }

  @Override
  public Map<String, Integer> stock(Order order) {
    record("stock " + order.id());
    return Map.of("espresso", 3, "filter", 0);
  }

  @Override
  public int reserve(Reservation reservation) throws OutOfStockException {
    record("reserve " + reservation.order().id());
    if (outOfStock) {
      throw new OutOfStockException("no stock for " + reservation.order().id());
    }
    return reservation.quantity();
  }

  @Override
  public void ship(String shipmentId, Channel channel) {
    record("ship " + shipmentId);
  }

  @Override
  public String nothing(String key) {
    record("nothing " + key);
    return null;
  }

  @Override
  public Settlement settle(String settlementId, BigDecimal amount, boolean accept) {
    record("settle " + settlementId);
    return accept
        ? new Settlement.Accepted("s-" + settlementId, amount)
        : new Settlement.Declined("limit exceeded for " + amount, 51);
  }

  @Override
  public Quote quote(String quoteId, Set<String> items, BigDecimal unitPrice) {
    record("quote " + quoteId);
    return new Quote(unitPrice.multiply(BigDecimal.valueOf(items.size())), items);
  }

  @Override
  public Parcel pack(String parcelId, int weightGrams, List<String> contents) {
    record("pack " + parcelId);
    return weightGrams <= 500
        ? new Parcel.Letter("l-" + parcelId, weightGrams)
        : new Parcel.Box("b-" + parcelId, weightGrams, contents);
  }

  @Override
  public int executions() {
    return runtime.inTransaction(connection -> {
      try (PreparedStatement count = connection.prepareStatement("SELECT COUNT(*) FROM executions");
           ResultSet rows = count.executeQuery()) {
        rows.next();
        return rows.getInt(1);
      }
    });
  }
}
