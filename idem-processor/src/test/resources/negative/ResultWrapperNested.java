package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.runtime.IdempotentResult;

public interface ResultWrapperNested {

  @IdempotentCommand
  IdempotentResult<IdempotentResult<String>> authorize(@IdempotencyKey String requestId, long amountCents);
}
