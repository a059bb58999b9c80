package com.example.billing;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public class PrivateResultType {

  private record Receipt(String id) {}

  interface Payments {
    @IdempotentCommand(scope = "payments.pay")
    Receipt pay(@IdempotencyKey String requestId);
  }
}
