package dev.idem.redis;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Stops asking a Redis that keeps failing: after {@code failuresToOpen} consecutive failures the circuit opens and
 * every call skips Redis (the database answers) for {@code openNanos}; then one call at a time is let through as a
 * probe, and the first success closes the circuit. Lock-free; the time source is {@link System#nanoTime()}.
 */
final class CircuitBreaker {

  private final int failuresToOpen;
  private final long openNanos;
  private final Consumer<Boolean> onChange;
  private final AtomicInteger consecutiveFailures = new AtomicInteger();
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

  void failed() {
    if (open.get()) {
      // The probe failed: wait another period before the next one.
      probeAtNanos = System.nanoTime() + openNanos;
      probing.set(false);
      return;
    }
    if (consecutiveFailures.incrementAndGet() >= failuresToOpen) {
      probeAtNanos = System.nanoTime() + openNanos;
      if (open.compareAndSet(false, true)) {
        onChange.accept(true);
      }
    }
  }

  boolean isOpen() {
    return open.get();
  }
}
