package com.example.flow;

import com.example.flow.model.Order;
import dev.idem.EntityId;
import dev.idem.ExpectedVersion;
import dev.idem.StateTransition;

public interface VersionType {

  @StateTransition(entity = Order.class, from = "CREATED", to = "PAID")
  void pay(@EntityId long id,
           @ExpectedVersion String version);
}
