package com.example.flow;

import com.example.flow.model.Order;
import dev.idem.EntityId;
import dev.idem.StateTransition;

public interface UnknownFromState {

  @StateTransition(entity = Order.class, to = "SHIPPED",
      from = {"PAID", "REFUNDED"})
  void ship(@EntityId long id);
}
