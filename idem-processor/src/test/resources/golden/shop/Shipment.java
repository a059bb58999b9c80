package shop;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/**
 * Names that need quoting: the table is the reserved word ORDER, the version column was quoted by JPA. Standard SQL
 * quotes them "so", MariaDB `so`; the plain state and id columns stay unquoted.
 */
@Entity
@Table(name = "order", schema = "shipping")
public class Shipment {

  public enum State { PACKED, SENT, LOST, DELIVERED }

  @Id
  private Long id;

  @Enumerated(EnumType.STRING)
  @Column(name = "state")
  private State status;

  @Version
  @Column(name = "\"Row Version\"")
  private long version;
}
