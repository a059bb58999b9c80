package dev.idem.integration.windows;

import dev.idem.IdempotentCommand;
import dev.idem.Mode;
import java.util.List;
import java.util.UUID;

/** Commands whose callers send no key: the same caller and payload within a window is one action. */
public interface CartClicks {

  @IdempotentCommand(scope = "windows.addToCart", window = "PT5S", identity = "userId")
  String addToCart(String userId, String sku, int quantity);

  @IdempotentCommand(scope = "windows.submitForm", window = "PT1M", identity = "sessionId", mode = Mode.CLAIM)
  String submitForm(UUID sessionId, List<String> fields);
}
