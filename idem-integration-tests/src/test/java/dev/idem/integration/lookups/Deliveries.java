package dev.idem.integration.lookups;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.Mode;

/** Webhook deliveries, often retried: every command reads the key's record before claiming it. */
public interface Deliveries {

  /** A business refusal, stored and replayed like a result. */
  final class Refused extends RuntimeException {
    private final String reason;

    public Refused(String reason) {
      super("refused: " + reason);
      this.reason = reason;
    }

    public String reason() {
      return reason;
    }
  }

  record Receipt(String deliveryId, String body, int execution) {}

  @IdempotentCommand(scope = "lookups.receive", retention = "PT1H", lookupFirst = true, replayOn = Refused.class)
  Receipt receive(@IdempotencyKey String deliveryId, String body);

  @IdempotentCommand(scope = "lookups.forward", retention = "PT1H", lookupFirst = true, mode = Mode.CLAIM,
      lease = "PT30S")
  Receipt forward(@IdempotencyKey String deliveryId, String body);

  @IdempotentCommand(scope = "lookups.acknowledge", retention = "PT1H", lookupFirst = true)
  void acknowledge(@IdempotencyKey String deliveryId);
}
