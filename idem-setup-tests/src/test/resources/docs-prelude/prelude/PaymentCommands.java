package docs.prelude;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** A service interface other interfaces extend. */
public interface PaymentCommands {
  @IdempotentCommand(scope = "docs.payment-commands.pay")
  Receipt pay(@IdempotencyKey String requestId, PayRequest request);
}
