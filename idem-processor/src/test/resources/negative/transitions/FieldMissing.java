package com.example.flow;

import com.example.flow.model.Order;
import dev.idem.EntityId;
import dev.idem.StateTransition;

public interface FieldMissing {

  @StateTransition(entity = Order.class, field = "stauts", from = "CREATED", to = "PAID")
  void pay(@EntityId long id);
}
