package com.example.flow;

import com.example.flow.model.Order;
import dev.idem.StateTransition;

public interface NoEntityId {

  @StateTransition(entity = Order.class, from = "CREATED", to = "PAID")
  void pay(long id);
}
