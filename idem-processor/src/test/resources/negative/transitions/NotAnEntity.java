package com.example.flow;

import com.example.flow.model.Note;
import dev.idem.EntityId;
import dev.idem.StateTransition;

public interface NotAnEntity {

  @StateTransition(entity = Note.class, from = "CREATED", to = "PAID")
  void pay(@EntityId long id);
}
