package dev.idem.redis;

import java.util.function.BiFunction;

/** A {@link Reminders} whose commands all run one body (the tests tell them apart by scope, not by body). */
final class SameBodyReminders implements Reminders {

  private final BiFunction<String, String, String> body;

  SameBodyReminders(BiFunction<String, String, String> body) {
    this.body = body;
  }

  @Override
  public String send(String reminderId, String text) {
    return body.apply(reminderId, text);
  }

  @Override
  public String sendWaiting(String reminderId, String text) {
    return body.apply(reminderId, text);
  }

  @Override
  public String sendShortLease(String reminderId, String text) {
    return body.apply(reminderId, text);
  }

  @Override
  public String click(String userId, String button) {
    return body.apply(userId, button);
  }
}
