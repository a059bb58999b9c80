package dev.idem.runtime.internal;

import dev.idem.KeyTime;
import dev.idem.runtime.InvalidIdempotencyKeyException;
import dev.idem.runtime.InvalidIdempotencyKeyException.KeyRule;
import java.time.Instant;

/**
 * The time a key carries ({@code @IdempotentCommand(keyTime = …)}): read from the composed key's first part, and
 * checked to be plausible, so that the day it files the record under is one every retry of the key agrees on and a
 * partition of the dedup window holds.
 */
final class KeyTimes {

  /** How far ahead of the database's time a key's time may be (producers' clocks). */
  static final long MAX_AHEAD_MILLIS = SqlDialect.DAY_MILLIS;
  private static final String CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

  private KeyTimes() {}

  /**
   * The epoch millis the key's first part carries.
   *
   * @throws InvalidIdempotencyKeyException if it is no id of the format, or its time is outside
   *     [now - window, now + a day]
   */
  static long embeddedMillis(CommandSpec<?> spec, String key, long now) {
    int separator = key.indexOf(KeyComposer.SEPARATOR);
    String id = separator < 0 ? key : key.substring(0, separator);
    long millis = spec.keyTime() == KeyTime.UUID_V7 ? uuidV7Millis(spec, id) : ulidMillis(spec, id);
    if (millis < now - spec.retentionMillis() || millis > now + MAX_AHEAD_MILLIS) {
      throw new InvalidIdempotencyKeyException(spec.scope(), KeyRule.KEY_TIME_IMPLAUSIBLE, "The key '" + key
          + "' of " + spec.scope() + " carries the time " + Instant.ofEpochMilli(millis) + ", outside its dedup"
          + " window (" + spec.retention() + " before now, " + Instant.ofEpochMilli(now) + ") or more than a day"
          + " ahead: keyTime = " + spec.keyTime() + " needs ids made when the action was first asked for");
    }
    return millis;
  }

  private static long uuidV7Millis(CommandSpec<?> spec, String id) {
    // xxxxxxxx-xxxx-7xxx-yxxx-xxxxxxxxxxxx: the first 12 hex digits are the milliseconds, '7' the version.
    if (id.length() != 36 || id.charAt(8) != '-' || id.charAt(13) != '-' || id.charAt(14) != '7'
        || id.charAt(18) != '-' || id.charAt(23) != '-') {
      throw unreadable(spec, id, "a UUID version 7 in its 36-character form");
    }
    try {
      return Long.parseLong(id.substring(0, 8) + id.substring(9, 13), 16);
    } catch (NumberFormatException e) {
      throw unreadable(spec, id, "a UUID version 7 in its 36-character form");
    }
  }

  private static long ulidMillis(CommandSpec<?> spec, String id) {
    if (id.length() != 26) {
      throw unreadable(spec, id, "a ULID of 26 Crockford base-32 characters");
    }
    long millis = 0;
    for (int i = 0; i < 10; i++) {
      int digit = CROCKFORD.indexOf(Character.toUpperCase(id.charAt(i)));
      if (digit < 0) {
        throw unreadable(spec, id, "a ULID of 26 Crockford base-32 characters");
      }
      millis = millis * 32 + digit;
    }
    return millis;
  }

  private static InvalidIdempotencyKeyException unreadable(CommandSpec<?> spec, String id, String expected) {
    return new InvalidIdempotencyKeyException(spec.scope(), KeyRule.KEY_TIME_UNREADABLE, "The first key part '" + id
        + "' of " + spec.scope() + " is not " + expected + ", which keyTime = " + spec.keyTime() + " reads its time"
        + " from");
  }
}
