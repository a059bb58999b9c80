package dev.idem.redis;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.InFlight;
import dev.idem.Mode;
import dev.idem.Store;

/** Redis-only commands (store = Store.REDIS): no database round trip, a rare repeat accepted. */
public interface Reminders {

  @IdempotentCommand(scope = "redis.reminders.send", mode = Mode.CLAIM, store = Store.REDIS, retention = "PT10M",
      lease = "PT30S")
  String send(@IdempotencyKey String reminderId, String text);

  @IdempotentCommand(scope = "redis.reminders.sendWaiting", mode = Mode.CLAIM, store = Store.REDIS,
      retention = "PT10M", lease = "PT30S", onInFlight = InFlight.WAIT, waitTimeout = "PT20S")
  String sendWaiting(@IdempotencyKey String reminderId, String text);

  @IdempotentCommand(scope = "redis.reminders.sendShortLease", mode = Mode.CLAIM, store = Store.REDIS,
      retention = "PT10M", lease = "PT0.3S")
  String sendShortLease(@IdempotencyKey String reminderId, String text);

  @IdempotentCommand(scope = "redis.reminders.click", mode = Mode.CLAIM, store = Store.REDIS, window = "PT1S",
      identity = "userId")
  String click(String userId, String button);
}
