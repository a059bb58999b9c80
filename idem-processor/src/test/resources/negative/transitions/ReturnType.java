package com.example.flow;

import com.example.flow.model.Order;
import dev.idem.EntityId;
import dev.idem.StateTransition;

public interface ReturnType {

  @StateTransition(entity = Order.class, from = "CREATED", to = "PAID")
  String pay(@EntityId long id);
}
