package com.example.billing;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public class PrivateService {

  private interface Payments {
    @IdempotentCommand(scope = "payments.pay")
    String pay(@IdempotencyKey String requestId);
  }
}
