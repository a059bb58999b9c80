package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.Store;

public interface RedisOnlyTransactional {

  @IdempotentCommand(store = Store.REDIS)
  void sendReminder(@IdempotencyKey String reminderId, String text);
}
