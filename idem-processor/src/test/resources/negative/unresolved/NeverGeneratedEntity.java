package com.example.shop;

import dev.idem.EntityId;
import dev.idem.StateTransition;

/** Names an entity that no source declares and no processor generates. */
public interface NeverGeneratedEntity {

  @StateTransition(entity = MissingShipment.class, field = "status", from = "PACKED", to = "SENT")
  boolean send(@EntityId long shipmentId);
}
