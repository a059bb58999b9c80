package dev.idem.jpa;

import jakarta.persistence.EntityManager;
import java.util.concurrent.atomic.AtomicInteger;

/** The application's delegate: plain JPA through the unit of work's EntityManager, no JDBC. */
final class JpaBookings implements Bookings {

  private final JpaUnitOfWork jpa;
  final AtomicInteger bookCalls = new AtomicInteger();
  final AtomicInteger bookIfFreeCalls = new AtomicInteger();
  final AtomicInteger chargeCalls = new AtomicInteger();

  JpaBookings(JpaUnitOfWork jpa) {
    this.jpa = jpa;
  }

  @Override
  public long book(String requestId, String guest) {
    bookCalls.incrementAndGet();
    EntityManager entityManager = jpa.entityManager();
    Booking booking = new Booking(requestId, guest);
    entityManager.persist(booking);
    if (guest.equals("boom")) {
      throw new IllegalStateException("the body failed after persisting " + requestId);
    }
    return booking.getId();
  }

  @Override
  public long bookIfFree(String requestId, String guest, boolean full) throws NoRoomException {
    bookIfFreeCalls.incrementAndGet();
    Booking booking = new Booking(requestId, guest);
    jpa.entityManager().persist(booking);
    if (full) {
      throw new NoRoomException("no room for " + guest, guest);
    }
    return booking.getId();
  }

  @Override
  public String charge(String paymentId, long amountCents) {
    chargeCalls.incrementAndGet();
    return "charged " + paymentId + " " + amountCents;
  }
}
