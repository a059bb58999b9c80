package dev.idem.micrometer;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.Mode;

/** A card charge at a provider: CLAIM mode, so in-flight rejections, takeovers and lost leases can happen. */
public interface Charges {

  @IdempotentCommand(scope = "payments.charge", mode = Mode.CLAIM, lease = "PT30S")
  String charge(@IdempotencyKey String paymentId, long amountCents);

  @IdempotentCommand(scope = "orders.create")
  String createOrder(@IdempotencyKey String requestId, String sku);
}
