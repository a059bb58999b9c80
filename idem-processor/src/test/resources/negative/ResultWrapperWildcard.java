package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.runtime.IdempotentResult;

public interface ResultWrapperWildcard {

  @IdempotentCommand
  IdempotentResult<? extends CharSequence> authorize(@IdempotencyKey String requestId, long amountCents);
}
