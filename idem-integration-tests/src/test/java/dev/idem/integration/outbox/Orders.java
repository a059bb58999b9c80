package dev.idem.integration.outbox;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** A command whose body writes the order and its event in one transaction. */
public interface Orders {

  @IdempotentCommand(scope = "outbox.orders.place")
  String place(@IdempotencyKey String requestId, String orderId, long amountCents);
}
