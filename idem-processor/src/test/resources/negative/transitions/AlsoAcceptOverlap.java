package com.example.flow;

import com.example.flow.model.Order;
import dev.idem.EntityId;
import dev.idem.StateTransition;

public interface AlsoAcceptOverlap {

  @StateTransition(entity = Order.class, from = "CREATED", to = "PAID",
      alsoAccept = {"SHIPPED", "CREATED"})
  void pay(@EntityId long id);
}
