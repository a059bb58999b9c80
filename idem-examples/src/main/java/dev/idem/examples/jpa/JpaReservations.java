package dev.idem.examples.jpa;

import dev.idem.jpa.JpaUnitOfWork;
import jakarta.inject.Inject;
import java.util.concurrent.atomic.AtomicInteger;

/** The application's implementation, plain JPA: it persists through the EntityManager of the unit of work. */
public class JpaReservations implements Reservations_Commands {

  private final JpaUnitOfWork jpa;
  private final AtomicInteger calls = new AtomicInteger();

  @Inject
  public JpaReservations(JpaUnitOfWork jpa) {
    this.jpa = jpa;
  }

  @Override
  public Reservations.Reserved reserve(String requestId, Reservations.Reserve request) {
    calls.incrementAndGet();
    Reservation reservation = new Reservation(request.guest(), request.nights());
    jpa.entityManager().persist(reservation);
    return new Reservations.Reserved(reservation.getId(), reservation.getGuest(), reservation.getNights());
  }

  /** @return how often the body ran (a replay does not run it) */
  public int calls() {
    return calls.get();
  }
}
