package com.example.flow;

import com.example.flow.model.Wide;
import dev.idem.EntityId;
import dev.idem.StateTransition;

public interface FieldListed {

  @StateTransition(entity = Wide.class, field = "lifecycle", from = "CREATED", to = "PAID")
  void pay(@EntityId long id);
}
