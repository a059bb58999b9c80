package com.example.flow;

import com.example.flow.model.Order;
import dev.idem.EntityId;
import dev.idem.StateTransition;

public interface EntityIdWithoutTransition {

  @StateTransition(entity = Order.class, from = {"CREATED", "SHIPPED", "FINISHED"}, to = "PAID")
  void pay(@EntityId long id);

  void audit(@EntityId long id);
}
