package dev.idem.benchmarks.redis;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.util.List;

/** A consumer of batches, deduplicated in the database's consume log, with or without Redis in front. */
public interface RedisPaymentEvents {

  /** One message. */
  record Paid(String messageId, long amountCents) {}

  @IdempotentCommand(scope = "bench.redis.paid", retention = "PT1H")
  int onPaid(@IdempotencyKey("messageId") List<Paid> messages);
}
