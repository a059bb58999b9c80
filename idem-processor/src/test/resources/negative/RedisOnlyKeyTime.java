package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.KeyTime;
import dev.idem.Mode;
import dev.idem.Store;

public interface RedisOnlyKeyTime {

  @IdempotentCommand(store = Store.REDIS, mode = Mode.CLAIM, keyTime = KeyTime.UUID_V7)
  void sendReminder(@IdempotencyKey String reminderId, String text);
}
