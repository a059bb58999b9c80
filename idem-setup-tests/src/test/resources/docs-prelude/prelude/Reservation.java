package docs.prelude;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;

@Entity
public class Reservation {
  @Id
  @GeneratedValue(strategy = GenerationType.IDENTITY)
  private Long id;
  private String guest;
  private int nights;

  protected Reservation() {}

  public Reservation(String guest, int nights) {
    this.guest = guest;
    this.nights = nights;
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
}
