package com.example.billing;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** Uses deprecated types everywhere the generated class names them: it must still compile with -Werror. */
public interface LegacyBilling {

  /** @deprecated use the new invoice API */
  @Deprecated
  record OldInvoice(String number, long amountCents) {}

  /** @deprecated will go */
  @Deprecated(forRemoval = true)
  record DoomedRequest(String customer) {}

  @SuppressWarnings("removal")
  @IdempotentCommand(scope = "billing.invoice")
  OldInvoice invoice(@IdempotencyKey String requestId, DoomedRequest request);

  /** @deprecated use invoice */
  @Deprecated
  @IdempotentCommand(scope = "billing.legacy-invoice")
  String legacyInvoice(@IdempotencyKey String requestId);

  /** @deprecated forwarded */
  @Deprecated
  String status(String number);
}
