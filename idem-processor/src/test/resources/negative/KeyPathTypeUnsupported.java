package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.math.BigDecimal;

public interface KeyPathTypeUnsupported {

  @IdempotentCommand
  void refund(@IdempotencyKey("amount") RefundRequest request);
}

record RefundRequest(String orderId, BigDecimal amount) {}
