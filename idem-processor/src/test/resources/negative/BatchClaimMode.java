package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.Mode;
import java.util.List;

public interface BatchClaimMode {

  record OrderPaid(String messageId, long amountCents) {}

  @IdempotentCommand(mode = Mode.CLAIM)
  void onOrdersPaid(@IdempotencyKey("messageId") List<OrderPaid> batch, @IdempotencyKey String group);
}
