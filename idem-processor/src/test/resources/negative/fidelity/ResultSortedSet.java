package com.example.fidelity;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.util.SortedSet;

public interface ResultSortedSet {

  /** A TreeSet in reverse order would replay in natural order: the comparator is not stored. */
  @IdempotentCommand(scope = "fidelity.rank")
  SortedSet<String> topDown(@IdempotencyKey String requestId);
}
