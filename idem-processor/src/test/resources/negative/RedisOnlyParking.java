package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.Mode;
import dev.idem.Store;
import dev.idem.UndeclaredFailure;

public interface RedisOnlyParking {

  @IdempotentCommand(store = Store.REDIS, mode = Mode.CLAIM, onUndeclaredFailure = UndeclaredFailure.PARK)
  void sendReminder(@IdempotencyKey String reminderId, String text);
}
