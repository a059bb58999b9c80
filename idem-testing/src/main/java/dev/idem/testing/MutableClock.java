package dev.idem.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A UTC clock tests move by hand, e.g. past a retention period. Thread-safe. */
public final class MutableClock extends Clock {

  private final AtomicLong millis;

  /** @param start the clock's first reading */
  public MutableClock(Instant start) {
    this.millis = new AtomicLong(start.toEpochMilli());
  }

  /** A clock at 2030-01-01T00:00:00Z. */
  public MutableClock() {
    this(Instant.parse("2030-01-01T00:00:00Z"));
  }

  /** @param duration how far to move the clock forward */
  public void advance(Duration duration) {
    millis.addAndGet(duration.toMillis());
  }

  /** @param instant the clock's new reading */
  public void set(Instant instant) {
    millis.set(instant.toEpochMilli());
  }

  @Override
  public long millis() {
    return millis.get();
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis.get());
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("MutableClock is always UTC");
  }
}
