package com.example.flow;

import com.example.flow.model.Order;
import dev.idem.EntityId;
import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.StateTransition;
import java.io.IOException;

/** Commands, a plain method and transitions in one interface, as users write them. */
public interface OrderDesk {

  @IdempotentCommand
  long place(@IdempotencyKey String requestId, long amount) throws IOException;

  @StateTransition(entity = Order.class, from = "CREATED", to = "PAID")
  boolean pay(@EntityId long orderId);

  @StateTransition(entity = Order.class, from = "PAID", to = "SHIPPED")
  void ship(@EntityId long orderId);

  @StateTransition(entity = Order.class, from = "SHIPPED", to = "FINISHED")
  void finish(@EntityId long orderId);

  String describe(long orderId);
}
