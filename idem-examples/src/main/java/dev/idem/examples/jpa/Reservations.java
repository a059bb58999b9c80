package dev.idem.examples.jpa;

import dev.idem.EntityId;
import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.StateTransition;
import dev.idem.runtime.TransitionResult;

/**
 * A hotel's reservations: a command whose delegate persists with JPA, and a guarded transition of the same entity.
 * The delegate implements only the command ({@code Reservations_Commands}); idem generates the transition.
 */
public interface Reservations {

  record Reserve(String guest, int nights) {}

  record Reserved(long reservationId, String guest, int nights) {}

  @IdempotentCommand(scope = "examples.reservations.reserve", retention = "P1D")
  Reserved reserve(@IdempotencyKey String requestId, Reserve request);

  @StateTransition(entity = Reservation.class, from = "HELD", to = "CONFIRMED")
  TransitionResult confirm(@EntityId long reservationId);

  @StateTransition(entity = Reservation.class, from = {"HELD", "CONFIRMED"}, to = "CANCELLED")
  TransitionResult cancel(@EntityId long reservationId);
}
