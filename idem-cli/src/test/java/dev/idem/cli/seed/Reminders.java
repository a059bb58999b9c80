package dev.idem.cli.seed;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.Mode;
import dev.idem.Store;

/** A Redis-only command (store = Store.REDIS) whose records the CLI's --redis tests settle. */
public interface Reminders {

  /** Sends a reminder once per id; its records live in Redis alone. */
  @IdempotentCommand(scope = "Reminders.send", mode = Mode.CLAIM, store = Store.REDIS, lease = "PT1M",
      retention = "PT10M")
  String send(@IdempotencyKey String reminderId, String text);
}
