package com.example.shop;

import com.example.shop.generated.GeneratedShipment;
import dev.idem.EntityId;
import dev.idem.StateTransition;

/** Moves an entity that another annotation processor generates in the first round. */
public interface Ships {

  @StateTransition(entity = GeneratedShipment.class, field = "status", from = "PACKED", to = "SENT")
  boolean send(@EntityId long shipmentId);
}
