package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.runtime.IdempotentResult;
import java.util.List;

public interface BatchReturnsResultWrapper {

  record OrderPaid(String messageId) {}

  @IdempotentCommand
  IdempotentResult<Integer> onOrdersPaid(@IdempotencyKey("messageId") List<OrderPaid> batch);
}
