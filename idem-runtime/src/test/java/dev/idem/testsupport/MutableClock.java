package dev.idem.testsupport;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A UTC clock tests move by hand, e.g. past a retention period. Thread-safe. */
public final class MutableClock extends Clock {

  private final AtomicLong millis;

  public MutableClock(Instant start) {
    this.millis = new AtomicLong(start.toEpochMilli());
  }

  public MutableClock() {
    this(Instant.parse("2030-01-01T00:00:00Z"));
  }

  public void advance(Duration duration) {
    millis.addAndGet(duration.toMillis());
  }

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
