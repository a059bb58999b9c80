package docs.prelude;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/**
 * A JPA entity as an application already has it. idem reads only its mapping, at compile time, to write the
 * guarded updates of {@link OrderFlow}: table {@code purchase_orders}, id {@code id}, state {@code status}
 * (stored by name), version {@code version}. The example itself runs without a JPA provider.
 */
@Entity
@Table(name = "purchase_orders")
public class PurchaseOrder {

  @Id
  private Long id;

  @Enumerated(EnumType.STRING)
  @Column(name = "status", length = 16)
  private OrderStatus status;

  @Version
  private long version;

  protected PurchaseOrder() {}

  public Long getId() {
    return id;
  }

  public OrderStatus getStatus() {
    return status;
  }

  public long getVersion() {
    return version;
  }
}
