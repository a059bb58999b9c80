package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.util.List;

public interface LookupFirstBatch {

  record Reminder(String reminderId, String text) {}

  @IdempotentCommand(lookupFirst = true)
  void onReminders(@IdempotencyKey("reminderId") List<Reminder> reminders);
}
