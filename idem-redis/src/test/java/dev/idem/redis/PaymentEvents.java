package dev.idem.redis;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.util.List;

/** A consumer of batches: (messageId) per consumer group's scope, deduplicated with Redis in front. */
public interface PaymentEvents {

  /** One message. */
  record Paid(String messageId, long amountCents) {}

  @IdempotentCommand(scope = "redis.consumer.paid", retention = "PT10M")
  int onPaid(@IdempotencyKey("messageId") List<Paid> messages);
}
