package dev.idem.jpa;

import dev.idem.OutboxEvent;

/** Events written inside the application's JPA transaction. */
public interface BookingEvents {

  record Booked(String requestId, String guest) {}

  @OutboxEvent(destination = "bookings", key = "requestId")
  void booked(Booked event);
}
