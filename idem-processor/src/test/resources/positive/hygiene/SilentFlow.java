package com.example.flow;

import com.example.flow.model.Order;
import dev.idem.EntityId;
import dev.idem.StateTransition;

/** The same, silenced with the name that covers every idem warning. */
@SuppressWarnings("idem")
public interface SilentFlow {

  @StateTransition(entity = Order.class, from = "CREATED", to = "PAID", alsoAccept = "SHIPPED")
  boolean pay(@EntityId long orderId);

  @StateTransition(entity = Order.class, from = "PAID", to = "SHIPPED")
  boolean ship(@EntityId Long orderId);
}
