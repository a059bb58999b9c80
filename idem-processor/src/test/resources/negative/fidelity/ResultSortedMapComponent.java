package com.example.fidelity;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.util.concurrent.ConcurrentSkipListMap;

public interface ResultSortedMapComponent {

  /** A sorted map inside a record: its comparator is lost the same way. */
  record Scores(String game, ConcurrentSkipListMap<String, Integer> byPlayer) {}

  @IdempotentCommand(scope = "fidelity.scores")
  Scores scores(@IdempotencyKey String requestId);
}
