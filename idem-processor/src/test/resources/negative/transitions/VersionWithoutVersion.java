package com.example.flow;

import com.example.flow.model.Invoice;
import dev.idem.EntityId;
import dev.idem.ExpectedVersion;
import dev.idem.StateTransition;

public interface VersionWithoutVersion {

  @StateTransition(entity = Invoice.class, from = "CREATED", to = "PAID")
  void pay(@EntityId long number,
           @ExpectedVersion long version);
}
