package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.util.Set;

public interface BatchSetOfMessages {

  record OrderPaid(String messageId, long amountCents) {}

  @IdempotentCommand
  void onOrdersPaid(@IdempotencyKey("messageId") Set<OrderPaid> batch, @IdempotencyKey String group);
}
