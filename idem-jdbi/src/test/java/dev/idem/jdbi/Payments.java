package dev.idem.jdbi;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** A service whose delegate writes through JDBI. */
public interface Payments {

  @IdempotentCommand
  long pay(@IdempotencyKey String requestId, String account, long amountCents);
}
