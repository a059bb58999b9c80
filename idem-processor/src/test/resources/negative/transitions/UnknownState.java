package com.example.flow;

import com.example.flow.model.Order;
import dev.idem.EntityId;
import dev.idem.StateTransition;
import dev.idem.runtime.TransitionResult;

public interface UnknownState {

  @StateTransition(entity = Order.class, from = "CREATED",
      to = "PIAD")
  TransitionResult pay(@EntityId long id);
}
