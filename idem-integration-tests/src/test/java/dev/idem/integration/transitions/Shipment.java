package dev.idem.integration.transitions;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/**
 * Entity name "Order" and no @Table: the table is named after the entity, a reserved word, so the generated SQL
 * must quote it ("Order", or `Order` on MariaDB). The state is an enum without @Enumerated: stored by ordinal.
 * The mapping is on getters (property access).
 */
@Entity(name = "Order")
public class Shipment {

  private String code;
  private ShipmentStatus status;

  @Id
  public String getCode() {
    return code;
  }

  public ShipmentStatus getStatus() {
    return status;
  }
}
