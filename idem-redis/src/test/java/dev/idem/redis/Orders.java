package dev.idem.redis;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.InFlight;
import dev.idem.Mode;

/** Commands of both modes, with the in-flight choices the front tier has to honour. */
public interface Orders {

  @IdempotentCommand(scope = "redis.orders.create", retention = "PT10M")
  String create(@IdempotencyKey String requestId, String sku);

  @IdempotentCommand(scope = "redis.payments.charge", mode = Mode.CLAIM, lease = "PT30S")
  String charge(@IdempotencyKey String paymentId, long amountCents);

  @IdempotentCommand(scope = "redis.payments.chargeWaiting", mode = Mode.CLAIM, lease = "PT30S",
      onInFlight = InFlight.WAIT, waitTimeout = "PT20S")
  String chargeWaiting(@IdempotencyKey String paymentId, long amountCents);
}
