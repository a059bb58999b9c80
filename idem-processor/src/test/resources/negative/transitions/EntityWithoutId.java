package com.example.flow;

import com.example.flow.model.Draft;
import dev.idem.EntityId;
import dev.idem.StateTransition;

public interface EntityWithoutId {

  @StateTransition(entity = Draft.class, from = "CREATED", to = "PAID")
  void pay(@EntityId long id);
}
