package dev.idem.benchmarks.redis;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.Mode;
import dev.idem.Store;

/** A Redis-only command: a notification whose rare repeat is accepted. */
public interface RedisOnlyNotifications {

  @IdempotentCommand(scope = "bench.redis.notify", mode = Mode.CLAIM, store = Store.REDIS, retention = "PT10M")
  String notify(@IdempotencyKey String notificationId, String text);
}
