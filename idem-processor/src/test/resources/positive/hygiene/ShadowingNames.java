package com.example.billing;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** Parameters named like what the generated class declares: its constants, its fields, its locals. */
public interface ShadowingNames {

  @IdempotentCommand(scope = "names.charge")
  String charge(@IdempotencyKey String NO_PAYLOAD, long CHARGE, String idem, String delegate, String runtime);

  @IdempotentCommand(scope = "names.refund")
  String refund(@IdempotencyKey String CHARGE);

  @IdempotentCommand(scope = "names.no-payload")
  void noPayload(@IdempotencyKey String requestId);
}
