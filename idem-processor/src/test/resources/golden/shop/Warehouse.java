package shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** Holds a nested service interface: its implementation is Warehouse_Stock_Idempotent. */
public final class Warehouse {

  private Warehouse() {}

  public interface Stock {

    @IdempotentCommand(scope = "warehouse.restock")
    int restock(@IdempotencyKey("id") Shipment shipment, int quantity);
  }

  public record Shipment(java.util.UUID id, String sku) {}
}
