package com.example.flow;

import com.example.flow.model.Order;
import dev.idem.EntityId;
import dev.idem.StateTransition;

/** FINISHED is never reached, as in OrderFlow, but this interface says it knows. */
@SuppressWarnings("idem:IDEM-120")
public interface QuietFlow {

  @StateTransition(entity = Order.class, from = "CREATED", to = "PAID", alsoAccept = "SHIPPED")
  boolean pay(@EntityId long orderId);

  @StateTransition(entity = Order.class, from = "PAID", to = "SHIPPED")
  boolean ship(@EntityId Long orderId);
}
