package com.example.payments;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface WalletPayments {

  @IdempotentCommand(scope = "payments.charge")
  String charge(@IdempotencyKey String walletTransferId, long amountCents);
}
