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
    breaker.failed(System.nanoTime());
    breaker.failed(System.nanoTime());
    breaker.succeeded(); // the count is of failures in a row
    breaker.failed(System.nanoTime());
    breaker.failed(System.nanoTime());
    assertTrue(breaker.allowsCall());
    assertFalse(breaker.isOpen());

    breaker.failed(System.nanoTime());
    assertTrue(breaker.isOpen());
    assertFalse(breaker.allowsCall(), "open: Redis is not asked until the open time passed");
    assertEquals(List.of(true), changes);
  }

  @Test
  void onceOpenOneProbeAtATimeAndTheFirstSuccessCloses() {
    CircuitBreaker breaker = new CircuitBreaker(1, 0, changes::add); // probes allowed at once
    breaker.failed(System.nanoTime());
    assertTrue(breaker.isOpen());

    assertTrue(breaker.allowsCall(), "the probe");
    assertFalse(breaker.allowsCall(), "a second caller while the probe is out");
    breaker.failed(System.nanoTime()); // the probe failed: still open, the next probe after the open time
    assertTrue(breaker.isOpen());

    assertTrue(breaker.allowsCall());
    breaker.succeeded();
    assertFalse(breaker.isOpen());
    assertTrue(breaker.allowsCall());
    assertTrue(breaker.allowsCall());
    assertEquals(List.of(true, false), changes);
  }

  @Test
  void failuresOfCommandsSentBeforeTheLastCountedOneAreOneStallNotSeveral() {
    CircuitBreaker breaker = new CircuitBreaker(3, TimeUnit.HOURS.toNanos(1), changes::add);
    long sentTogether = System.nanoTime();
    for (int caller = 0; caller < 8; caller++) {
      breaker.failed(sentTogether); // eight callers' commands, in flight during one pause, all timed out
    }
    assertFalse(breaker.isOpen(), "one stall counts once");
    breaker.failed(System.nanoTime()); // sent after it: a second failure in a row
    assertFalse(breaker.isOpen());
    breaker.failed(System.nanoTime());
    assertTrue(breaker.isOpen(), "the third failure in a row opens");
    assertEquals(List.of(true), changes);
  }
}
