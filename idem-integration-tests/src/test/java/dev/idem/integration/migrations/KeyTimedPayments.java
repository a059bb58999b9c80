package dev.idem.integration.migrations;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.KeyTime;
import java.util.UUID;

/** A command whose keys carry their time: filed under the day of the key's UUIDv7 on day partitions. */
public interface KeyTimedPayments {

  @IdempotentCommand(keyTime = KeyTime.UUID_V7, retention = "P2D")
  String pay(@IdempotencyKey UUID paymentId, long amount);
}
