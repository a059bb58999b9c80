package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.runtime.IdempotentResult;

public interface ResultWrapperRaw {

  @SuppressWarnings("rawtypes")
  @IdempotentCommand
  IdempotentResult authorize(@IdempotencyKey String requestId, long amountCents);
}
