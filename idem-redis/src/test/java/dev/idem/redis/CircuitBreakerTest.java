package dev.idem.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CircuitBreakerTest {

  private final List<Boolean> changes = new ArrayList<>();

  @Test
  void opensAfterConsecutiveFailuresOnlyAndThenSkipsRedis() {
    CircuitBreaker breaker = new CircuitBreaker(3, TimeUnit.HOURS.toNanos(1), changes::add);
    breaker.failed();
    breaker.failed();
    breaker.succeeded(); // the count is of failures in a row
    breaker.failed();
    breaker.failed();
    assertTrue(breaker.allowsCall());
    assertFalse(breaker.isOpen());

    breaker.failed();
    assertTrue(breaker.isOpen());
    assertFalse(breaker.allowsCall(), "open: Redis is not asked until the open time passed");
    assertEquals(List.of(true), changes);
  }

  @Test
  void onceOpenOneProbeAtATimeAndTheFirstSuccessCloses() {
    CircuitBreaker breaker = new CircuitBreaker(1, 0, changes::add); // probes allowed at once
    breaker.failed();
    assertTrue(breaker.isOpen());

    assertTrue(breaker.allowsCall(), "the probe");
    assertFalse(breaker.allowsCall(), "a second caller while the probe is out");
    breaker.failed(); // the probe failed: still open, the next probe after the open time
    assertTrue(breaker.isOpen());

    assertTrue(breaker.allowsCall());
    breaker.succeeded();
    assertFalse(breaker.isOpen());
    assertTrue(breaker.allowsCall());
    assertTrue(breaker.allowsCall());
    assertEquals(List.of(true, false), changes);
  }
}
