package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface KeyPathSyntax {

  @IdempotentCommand
  void onPaymentCaptured(@IdempotencyKey("header..messageId") PaymentCaptured event);
}

record MessageHeader(String messageId, String source) {}

record PaymentCaptured(MessageHeader header, long amountCents) {}
