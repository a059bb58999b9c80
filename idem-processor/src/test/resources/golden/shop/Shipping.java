package shop;

import dev.idem.EntityId;
import dev.idem.ExpectedVersion;
import dev.idem.StateTransition;
import dev.idem.runtime.TransitionResult;

/** Transitions only: no delegate, one guarded update each, with dialect-specific SQL where names are quoted. */
public interface Shipping {

  @StateTransition(entity = Shipment.class, from = "PACKED", to = "SENT", alsoAccept = "DELIVERED")
  TransitionResult send(@EntityId long shipmentId);

  @StateTransition(entity = Shipment.class, from = {"SENT", "LOST"}, to = "DELIVERED", log = true)
  boolean deliver(@EntityId Long shipmentId, @ExpectedVersion long version);

  @StateTransition(entity = Shipment.class, from = "SENT", to = "LOST")
  void lose(@EntityId long shipmentId);
}
