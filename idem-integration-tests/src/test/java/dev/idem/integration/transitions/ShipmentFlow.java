package dev.idem.integration.transitions;

import dev.idem.EntityId;
import dev.idem.StateTransition;
import dev.idem.runtime.TransitionResult;

public interface ShipmentFlow {

  @StateTransition(entity = Shipment.class, from = "PENDING", to = "DISPATCHED", alsoAccept = "DELIVERED")
  TransitionResult dispatch(@EntityId String code);

  @StateTransition(entity = Shipment.class, from = "DISPATCHED", to = "DELIVERED")
  void deliver(@EntityId String code);

  @StateTransition(entity = Shipment.class, from = {"PENDING", "DISPATCHED"}, to = "LOST", log = true)
  boolean lose(@EntityId String code);
}
