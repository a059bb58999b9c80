package docs.prelude;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.Mode;
import dev.idem.runtime.IdempotentResult;

public interface Payments {
  @IdempotentCommand(scope = "docs.payments.pay")
  Receipt pay(@IdempotencyKey String requestId, PayRequest request);

  @IdempotentCommand(scope = "docs.payments.create", mode = Mode.CLAIM, lease = "PT10S")
  IdempotentResult<Payment> create(@IdempotencyKey String clientId, @IdempotencyKey String idempotencyKey,
                                   NewPayment payment);
}
