package dev.idem.integration.lookups;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.Mode;

/** Notifications whose senders sometimes retry a lot: the commands set nothing about reading first. */
public interface Notifications {

  record Accepted(String notificationId, String text, int execution) {}

  @IdempotentCommand(scope = "adaptive.accept", retention = "PT1H")
  Accepted accept(@IdempotencyKey String notificationId, String text);

  @IdempotentCommand(scope = "adaptive.relay", retention = "PT1H", mode = Mode.CLAIM, lease = "PT30S")
  Accepted relay(@IdempotencyKey String notificationId, String text);
}
