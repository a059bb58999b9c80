package dev.idem.integration.migrations;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.Mode;

/** One command of each mode, run on a schema that Flyway created. */
public interface Ledger {

  @IdempotentCommand
  String credit(@IdempotencyKey String requestId, long amount);

  @IdempotentCommand(mode = Mode.CLAIM, lease = "PT30S")
  String notifyCustomer(@IdempotencyKey String messageId, String text);
}
