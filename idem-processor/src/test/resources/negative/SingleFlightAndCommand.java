package com.example.jobs;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.SingleFlight;

public interface SingleFlightAndCommand {

  @SingleFlight
  @IdempotentCommand
  void settle(@IdempotencyKey String day);
}
