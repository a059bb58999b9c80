package dev.idem.integration.transitions;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/** An enum state stored as STRING in a renamed column, with a renamed @Version column. */
@Entity
@Table(name = "payments")
public class Payment {

  @Id
  private Long id;

  @Enumerated(EnumType.STRING)
  @Column(name = "payment_state")
  private PaymentState state;

  @Version
  @Column(name = "row_version")
  private long version;
}
