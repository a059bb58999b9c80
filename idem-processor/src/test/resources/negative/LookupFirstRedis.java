package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.Mode;
import dev.idem.Store;

public interface LookupFirstRedis {

  @IdempotentCommand(store = Store.REDIS, mode = Mode.CLAIM, lookupFirst = true)
  void sendReminder(@IdempotencyKey String reminderId, String text);
}
