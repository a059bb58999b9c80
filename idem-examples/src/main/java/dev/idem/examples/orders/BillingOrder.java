package dev.idem.examples.orders;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/**
 * The billing service's copy of an order (its own table, {@code billing_orders}); idem reads the mapping at compile
 * time to write {@link BillingFlow}'s guarded update.
 */
@Entity
@Table(name = "billing_orders")
public class BillingOrder {

  @Id
  private Long id;

  @Enumerated(EnumType.STRING)
  @Column(name = "status", length = 16)
  private BillingStatus status;

  @Version
  private long version;

  /** For JPA. */
  protected BillingOrder() {}

  /** @return the order's id */
  public Long getId() {
    return id;
  }

  /** @return the billing status */
  public BillingStatus getStatus() {
    return status;
  }

  /** @return the row's version */
  public long getVersion() {
    return version;
  }
}
