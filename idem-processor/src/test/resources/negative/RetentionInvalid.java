package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface RetentionInvalid {

  @IdempotentCommand(scope = "invoices.issue",
      retention = "P1M")
  String issueInvoice(@IdempotencyKey String orderId);
}
