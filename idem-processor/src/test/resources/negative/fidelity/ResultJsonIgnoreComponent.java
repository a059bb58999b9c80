package com.example.fidelity;

import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface ResultJsonIgnoreComponent {

  /** The stored JSON would lack passwordHash, which the canonical constructor needs. */
  record User(String name, @JsonIgnore String passwordHash) {}

  @IdempotentCommand(scope = "fidelity.register")
  User register(@IdempotencyKey String requestId);
}
