package com.example.flow;

import com.example.flow.model.Order;
import dev.idem.EntityId;
import dev.idem.StateTransition;

/** Suppressing another tag leaves IDEM-120 reported. */
@SuppressWarnings("idem:IDEM-121")
public interface OtherTagSuppressed {

  @StateTransition(entity = Order.class, from = "CREATED", to = "PAID", alsoAccept = "SHIPPED")
  boolean pay(@EntityId long orderId);

  @StateTransition(entity = Order.class, from = "PAID", to = "SHIPPED")
  boolean ship(@EntityId Long orderId);
}
