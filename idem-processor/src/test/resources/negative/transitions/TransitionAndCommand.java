package com.example.flow;

import com.example.flow.model.Order;
import dev.idem.EntityId;
import dev.idem.IdempotentCommand;
import dev.idem.StateTransition;

public interface TransitionAndCommand {

  @StateTransition(entity = Order.class, from = "CREATED", to = "PAID")
  @IdempotentCommand(scope = "orders.pay")
  void pay(@EntityId long id);
}
