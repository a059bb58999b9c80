package dev.idem.di;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** The service every container test wires: a deposit that a retried request must not apply twice. */
public interface Accounts {

  /** Adds the amount to the account and returns its new balance; a retry returns the first call's balance. */
  @IdempotentCommand(scope = "accounts.deposit")
  long deposit(@IdempotencyKey String requestId, String account, long amountCents);

  /** Forwarded to the user's implementation unchanged. */
  long balance(String account);
}
