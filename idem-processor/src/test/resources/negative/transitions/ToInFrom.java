package com.example.flow;

import com.example.flow.model.Order;
import dev.idem.EntityId;
import dev.idem.StateTransition;

public interface ToInFrom {

  @StateTransition(entity = Order.class, from = {"CREATED", "PAID"},
      to = "PAID")
  void pay(@EntityId long id);
}
