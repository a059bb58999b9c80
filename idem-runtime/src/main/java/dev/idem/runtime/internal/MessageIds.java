package dev.idem.runtime.internal;

import java.security.SecureRandom;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Outbox message ids: UUID version 7 (RFC 9562), 48 bits of epoch millis, then 12 bits that count up within a
 * millisecond (RFC 9562's method 3), then 62 random bits. Ids made by one JVM therefore sort in the order they were
 * made, even within one millisecond and across a clock step back (the time then stays at the latest seen until the
 * clock catches up), which per-key ordering relies on; and they never repeat.
 */
final class MessageIds {

  private static final SecureRandom RANDOM = new SecureRandom();
  /** The last id's millis and counter: {@code millis << 12 | counter}. */
  private static final AtomicLong LAST = new AtomicLong();

  private MessageIds() {}

  static String next(long epochMillis) {
    long candidate = (epochMillis & 0xFFFF_FFFF_FFFFL) << 12;
    long stamp = LAST.updateAndGet(last -> Math.max(candidate, last + 1));
    long millis = stamp >>> 12;
    long counter = stamp & 0xFFF;
    long msb = (millis & 0xFFFF_FFFF_FFFFL) << 16 | 0x7000L | counter;
    long lsb = (RANDOM.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
    return new UUID(msb, lsb).toString();
  }
}
