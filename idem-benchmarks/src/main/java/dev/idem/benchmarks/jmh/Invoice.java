package dev.idem.benchmarks.jmh;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/** The entity of the transition benchmarks; only its mapping is used, by the processor. */
@Entity
@Table(name = "bench_invoices")
public class Invoice {

  /** An invoice is open until paid; reopening it lets one row be moved back and forth forever. */
  public enum Status { OPEN, PAID }

  @Id
  private Long id;

  @Enumerated(EnumType.STRING)
  @Column(name = "status", length = 16)
  private Status status;

  @Version
  private long version;

  protected Invoice() {}
}
