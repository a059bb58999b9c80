package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface GenericMethod {

  @IdempotentCommand
  <R> R charge(@IdempotencyKey String paymentId, long amountCents, Class<R> receiptType);
}
