package dev.idem.jpa;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.Mode;

/** Commands whose delegate persists with the EntityManager of the application's transaction. */
public interface Bookings {

  /** Persists a booking; a guest named {@code "boom"} makes the body fail after persisting. */
  @IdempotentCommand(scope = "jpa.bookings.book")
  long book(@IdempotencyKey String requestId, String guest);

  /** Persists a booking, then refuses (a business failure, replayed) when the hotel is full. */
  @IdempotentCommand(scope = "jpa.bookings.book-if-free", replayOn = NoRoomException.class)
  long bookIfFree(@IdempotencyKey String requestId, String guest, boolean full) throws NoRoomException;

  /** Calls something outside the database: its claim commits first, so it cannot join a JPA transaction. */
  @IdempotentCommand(scope = "jpa.bookings.charge", mode = Mode.CLAIM, lease = "PT10S")
  String charge(@IdempotencyKey String paymentId, long amountCents);
}
