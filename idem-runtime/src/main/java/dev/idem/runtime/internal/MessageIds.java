package dev.idem.runtime.internal;

import java.security.SecureRandom;
import java.util.UUID;

/**
 * Outbox message ids: UUID version 7 (RFC 9562), 48 bits of epoch millis then random bits, so that ids sort by the
 * time they were made (the outbox's primary key stays append-mostly) and never repeat.
 */
final class MessageIds {

  private static final SecureRandom RANDOM = new SecureRandom();

  private MessageIds() {}

  static String next(long epochMillis) {
    long random = RANDOM.nextLong();
    long msb = (epochMillis & 0xFFFF_FFFF_FFFFL) << 16 | 0x7000L | (RANDOM.nextInt() & 0x0FFF);
    long lsb = (random & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
    return new UUID(msb, lsb).toString();
  }
}
