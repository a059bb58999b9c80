package dev.idem.benchmarks.retention;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.KeyTime;
import java.util.UUID;

/**
 * {@link Payments} for messages whose ids carry their time: the producer's UUIDv7, declared with {@code keyTime}, so
 * that on day partitions a claim is one {@code INSERT … ON CONFLICT} into the key's own day, without the per-key lock
 * and the probe of the dedup window's days. A scope of its own (each command has one), the fill's
 * {@link RecordFill#TIME_SCOPE}.
 */
public interface KeyTimedPayments {

  /** Records expire 14 days after their first execution, as the benchmark's fill does. */
  @IdempotentCommand(scope = RecordFill.TIME_SCOPE, retention = "P14D", keyTime = KeyTime.UUID_V7)
  Payments.Receipt pay(@IdempotencyKey UUID messageId, @IdempotencyKey String group, long amountCents);
}
