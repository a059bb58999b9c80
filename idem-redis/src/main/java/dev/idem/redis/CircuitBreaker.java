package dev.idem.redis;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Stops asking a Redis that keeps failing: after {@code failuresToOpen} consecutive failures the circuit opens and
 * every call skips Redis (the database answers) for {@code openNanos}; then one call at a time is let through as a
 * probe, and the first success closes the circuit. Lock-free; the time source is {@link System#nanoTime()}.
 *
 * <p>Consecutive means one after the other in time: a failed command that was already sent when the last counted
 * failure was reported overlapped it, and does not count again. One stall (a pause of this JVM, of the machine or of
 * Redis) times out every command in flight at once, as many failures as callers; counted each, eight callers would
 * open the circuit on a single 100 ms hiccup and send every call to the database for the whole open time. A Redis
 * that is down or stays slow still fails the commands sent after each failure, and opens the circuit after
 * {@code failuresToOpen} of them.
 */
final class CircuitBreaker {

  private final int failuresToOpen;
  private final long openNanos;
  private final Consumer<Boolean> onChange;
  private final AtomicInteger consecutiveFailures = new AtomicInteger();
  /** When the last counted failure was reported; meaningful only while {@link #consecutiveFailures} is above 0. */
  private final AtomicLong lastCountedFailureNanos = new AtomicLong();
  private final AtomicBoolean probing = new AtomicBoolean();
  /** When the open circuit lets a probe through; meaningful only while {@link #open}. */
  private volatile long probeAtNanos;
  private final AtomicBoolean open = new AtomicBoolean();

  CircuitBreaker(int failuresToOpen, long openNanos, Consumer<Boolean> onChange) {
    this.failuresToOpen = failuresToOpen;
    this.openNanos = openNanos;
    this.onChange = onChange;
  }

  /** Whether a call may ask Redis now; a true answer while open makes the caller the one probe. */
  boolean allowsCall() {
    if (!open.get()) {
      return true;
    }
    return System.nanoTime() - probeAtNanos >= 0 && probing.compareAndSet(false, true);
  }

  void succeeded() {
    consecutiveFailures.set(0);
    if (open.get() && open.compareAndSet(true, false)) {
      probing.set(false);
      onChange.accept(false);
    }
  }

  /**
   * Reports a failed command.
   *
   * @param sentAtNanos when the command was sent ({@link System#nanoTime()})
   */
  void failed(long sentAtNanos) {
    long now = System.nanoTime();
    if (open.get()) {
      // The probe failed: wait another period before the next one.
      probeAtNanos = now + openNanos;
      probing.set(false);
      return;
    }
    long last = lastCountedFailureNanos.get();
    if (consecutiveFailures.get() > 0 && sentAtNanos - last < 0) {
      return; // sent before the last counted failure was reported: the same stall
    }
    if (!lastCountedFailureNanos.compareAndSet(last, now)) {
      return; // another caller counted a failure at the same moment: the same stall
    }
    if (consecutiveFailures.incrementAndGet() >= failuresToOpen) {
      probeAtNanos = now + openNanos;
      if (open.compareAndSet(false, true)) {
        onChange.accept(true);
      }
    }
  }

  boolean isOpen() {
    return open.get();
  }
}
