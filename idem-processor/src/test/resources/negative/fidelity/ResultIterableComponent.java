package com.example.fidelity;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.util.List;

public interface ResultIterableComponent {

  /** The walk reaches components at any depth: an Iterable inside a record inside a List. */
  record Label(String name, Iterable<String> aliases) {}

  record Catalog(String id, List<Label> labels) {}

  @IdempotentCommand(scope = "fidelity.catalog")
  Catalog catalog(@IdempotencyKey String requestId);
}
