package dev.idem.jpa;

import dev.idem.EntityId;
import dev.idem.StateTransition;
import dev.idem.runtime.TransitionResult;

/** A guarded transition of the entity the JPA delegate persists: generated, run on the JPA transaction's connection. */
public interface BookingFlow {

  @StateTransition(entity = Booking.class, from = "HELD", to = "CONFIRMED", alsoAccept = "CANCELLED")
  TransitionResult confirm(@EntityId long bookingId);
}
