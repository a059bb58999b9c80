package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface RetentionTooShort {

  @IdempotentCommand(scope = "invoices.reissue",
      retention = "PT0.0001S")
  String issueInvoice(@IdempotencyKey String orderId);
}
