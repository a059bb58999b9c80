package docs.prelude;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface Reservations {
  @IdempotentCommand(scope = "docs.reservations.reserve")
  Reserved reserve(@IdempotencyKey String requestId, Reserve request);
}
