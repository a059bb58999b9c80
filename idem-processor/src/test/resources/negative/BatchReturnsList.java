package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.util.List;

public interface BatchReturnsList {

  record OrderPaid(String messageId, long amountCents) {}

  @IdempotentCommand
  List<String> onOrdersPaid(@IdempotencyKey("messageId") List<OrderPaid> batch, @IdempotencyKey String group);
}
