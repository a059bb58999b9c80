package com.example.fidelity;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface ReplayOnObjectArgument {

  class Declined extends RuntimeException {
    private final Object detail;

    public Declined(Object detail) {
      this.detail = detail;
    }

    public Object detail() {
      return detail;
    }
  }

  @IdempotentCommand(scope = "fidelity.capture", replayOn = Declined.class)
  String capture(@IdempotencyKey String requestId);
}
