package dev.idem.benchmarks.retention;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.util.UUID;

/**
 * The retention benchmark's command, a consumer of payment events; idem generates {@code Payments_Idempotent}. Its
 * scope and key shape ({@code <UUID message id>|billing}) are the fill's, so that the measured claims land among the
 * filled records of the primary key (scope first) instead of in a scope of their own at one end of it.
 */
public interface Payments {

  record Receipt(String paymentId, long amountCents) {}

  /**
   * Records expire 14 days after their first execution, as the benchmark's fill does. The key is arbitrary to idem:
   * on day partitions a claim takes the key's lock and probes the window's days.
   */
  @IdempotentCommand(scope = RecordFill.SCOPE, retention = "P14D")
  Receipt pay(@IdempotencyKey UUID messageId, @IdempotencyKey String group, long amountCents);
}
