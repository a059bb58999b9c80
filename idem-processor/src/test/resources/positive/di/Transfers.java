package com.example.bank;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface Transfers {

  @IdempotentCommand
  String transfer(@IdempotencyKey String requestId, long amountCents);
}
