package dev.idem.benchmarks.retention;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

/** The retention benchmark's command; idem generates {@code Payments_Idempotent}. */
public interface Payments {

  record Receipt(String paymentId, long amountCents) {}

  /** Records expire 14 days after their first execution, as the benchmark's fill does. */
  @IdempotentCommand(scope = "bench.pay", retention = "P14D")
  Receipt pay(@IdempotencyKey String paymentId, long amountCents);
}
