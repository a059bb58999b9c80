package com.example.fidelity;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface ResultJsonIgnoreProperties {

  /** Read back through its constructor, which takes the property that @JsonIgnoreProperties leaves out. */
  @JsonIgnoreProperties({"internalNote"})
  final class Ticket {
    private final String id;
    private final String internalNote;

    public Ticket(String id, String internalNote) {
      this.id = id;
      this.internalNote = internalNote;
    }

    public String getId() {
      return id;
    }

    public String getInternalNote() {
      return internalNote;
    }
  }

  @IdempotentCommand(scope = "fidelity.open")
  Ticket open(@IdempotencyKey String requestId);
}
