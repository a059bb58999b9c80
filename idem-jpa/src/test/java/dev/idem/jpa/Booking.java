package dev.idem.jpa;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/** What the JPA delegate persists; {@code request_id} is deliberately not unique: idem must keep it one per key. */
@Entity
@Table(name = "bookings")
public class Booking {

  @Id
  @GeneratedValue(strategy = GenerationType.IDENTITY)
  @Column(name = "id")
  private Long id;

  @Column(name = "request_id", nullable = false, length = 64)
  private String requestId;

  @Column(name = "guest", nullable = false, length = 64)
  private String guest;

  @Enumerated(EnumType.STRING)
  @Column(name = "status", nullable = false, length = 16)
  private BookingStatus status;

  @Version
  @Column(name = "version", nullable = false)
  private long version;

  protected Booking() {}

  public Booking(String requestId, String guest) {
    this.requestId = requestId;
    this.guest = guest;
    this.status = BookingStatus.HELD;
  }

  public Long getId() {
    return id;
  }

  public String getRequestId() {
    return requestId;
  }

  public String getGuest() {
    return guest;
  }

  public void setGuest(String guest) {
    this.guest = guest;
  }

  public BookingStatus getStatus() {
    return status;
  }

  public long getVersion() {
    return version;
  }
}
