package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.Store;
import java.util.List;

public interface RedisOnlyBatch {

  record Reminder(String reminderId, String text) {}

  @IdempotentCommand(store = Store.REDIS)
  void onReminders(@IdempotencyKey("reminderId") List<Reminder> reminders);
}
