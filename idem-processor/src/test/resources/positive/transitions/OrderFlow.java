package com.example.flow;

import com.example.flow.model.Order;
import dev.idem.EntityId;
import dev.idem.StateTransition;
import dev.idem.runtime.TransitionResult;

/** FINISHED is never reached: a warning, and the diagram still lists it. */
public interface OrderFlow {

  @StateTransition(entity = Order.class, from = "CREATED", to = "PAID", alsoAccept = "SHIPPED")
  TransitionResult pay(@EntityId long orderId);

  @StateTransition(entity = Order.class, from = "PAID", to = "SHIPPED")
  boolean ship(@EntityId Long orderId);
}
