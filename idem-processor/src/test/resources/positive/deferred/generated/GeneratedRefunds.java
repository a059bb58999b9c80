package com.example.shop.generated;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** A service that another annotation processor generates in the first round, so idem first sees it in the second. */
public interface GeneratedRefunds {

  @IdempotentCommand
  GeneratedReceipt refund(@IdempotencyKey String refundId);
}
