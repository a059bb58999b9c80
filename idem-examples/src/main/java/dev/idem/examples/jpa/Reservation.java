package dev.idem.examples.jpa;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/**
 * A JPA entity as the application has it, written by Hibernate. idem reads its mapping at compile time for the
 * guarded update of {@link Reservations#confirm}.
 */
@Entity
@Table(name = "reservations")
public class Reservation {

  @Id
  @GeneratedValue(strategy = GenerationType.IDENTITY)
  @Column(name = "id")
  private Long id;

  @Column(name = "guest", nullable = false, length = 64)
  private String guest;

  @Column(name = "nights", nullable = false)
  private int nights;

  @Enumerated(EnumType.STRING)
  @Column(name = "status", nullable = false, length = 16)
  private ReservationStatus status;

  @Version
  @Column(name = "version", nullable = false)
  private long version;

  protected Reservation() {}

  public Reservation(String guest, int nights) {
    this.guest = guest;
    this.nights = nights;
    this.status = ReservationStatus.HELD;
  }

  public Long getId() {
    return id;
  }

  public String getGuest() {
    return guest;
  }

  public int getNights() {
    return nights;
  }

  public ReservationStatus getStatus() {
    return status;
  }

  public long getVersion() {
    return version;
  }
}
