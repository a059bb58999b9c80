package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.util.List;

public interface BatchTwoCollections {

  record OrderPaid(String messageId, long amountCents) {}

  record Group(String name) {}

  @IdempotentCommand
  void onOrdersPaid(@IdempotencyKey("messageId") List<OrderPaid> batch,
                    @IdempotencyKey("name") List<Group> groups);
}
