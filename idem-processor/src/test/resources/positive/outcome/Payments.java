package com.example.payments;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.InFlight;
import dev.idem.Mode;
import dev.idem.runtime.IdempotentResult;
import java.util.List;

/** Every shape of result wrapper: a generic value, CLAIM mode, Void and an array. */
public interface Payments {

  record Payment(String id, long amountCents) {}

  @IdempotentCommand
  IdempotentResult<List<Payment>> split(@IdempotencyKey String requestId, long amountCents, int parts);

  @IdempotentCommand(mode = Mode.CLAIM, onInFlight = InFlight.WAIT)
  IdempotentResult<Payment> capture(@IdempotencyKey String paymentId, long amountCents);

  @IdempotentCommand
  IdempotentResult<Void> cancel(@IdempotencyKey String paymentId);

  @IdempotentCommand
  IdempotentResult<byte[]> receipt(@IdempotencyKey String paymentId);
}
