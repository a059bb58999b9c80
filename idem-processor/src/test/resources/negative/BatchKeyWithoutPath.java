package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.util.List;

public interface BatchKeyWithoutPath {

  record OrderPaid(String messageId, long amountCents) {}

  @IdempotentCommand
  void onOrdersPaid(@IdempotencyKey List<OrderPaid> batch, @IdempotencyKey String group);
}
