package dev.idem.runtime.internal;

import dev.idem.OnBusy;
import java.time.Duration;
import java.util.Objects;

/**
 * What one {@code @SingleFlight} method declared, parsed once: generated code keeps it in a constant. The processor
 * has checked every value; the checks here guard hand-written callers of {@link IdemEngine#singleFlight}.
 */
@IdemInternal
public final class SingleFlightSpec {

  private final String name;
  private final Duration lockAtMostFor;
  private final Duration lockAtLeastFor;
  private final OnBusy onBusy;
  private final Duration waitTimeout;

  private SingleFlightSpec(String name, Duration lockAtMostFor, Duration lockAtLeastFor, OnBusy onBusy,
      Duration waitTimeout) {
    this.name = Objects.requireNonNull(name, "name");
    this.lockAtMostFor = Objects.requireNonNull(lockAtMostFor, "lockAtMostFor");
    this.lockAtLeastFor = Objects.requireNonNull(lockAtLeastFor, "lockAtLeastFor");
    this.onBusy = Objects.requireNonNull(onBusy, "onBusy");
    this.waitTimeout = Objects.requireNonNull(waitTimeout, "waitTimeout");
    if (name.isBlank() || name.length() > 255) {
      throw new IllegalArgumentException("A single-flight lock's name is 1 to 255 characters, got '" + name + "'");
    }
    if (lockAtMostFor.toMillis() < 1) {
      throw new IllegalArgumentException("lockAtMostFor of '" + name + "' must be positive, got " + lockAtMostFor);
    }
    if (lockAtLeastFor.isNegative() || lockAtLeastFor.compareTo(lockAtMostFor) >= 0) {
      throw new IllegalArgumentException("lockAtLeastFor of '" + name + "' must be at least zero and less than"
          + " lockAtMostFor (" + lockAtMostFor + "), got " + lockAtLeastFor);
    }
    if (waitTimeout.isNegative()) {
      throw new IllegalArgumentException("waitTimeout of '" + name + "' must not be negative, got " + waitTimeout);
    }
  }

  /**
   * @param name the lock's name
   * @param lockAtMostFor ISO-8601 duration
   * @param lockAtLeastFor ISO-8601 duration
   * @param onBusy what a call does when the lock is held elsewhere
   * @param waitTimeout ISO-8601 duration, for {@link OnBusy#WAIT}
   * @return the spec
   */
  public static SingleFlightSpec of(String name, String lockAtMostFor, String lockAtLeastFor, OnBusy onBusy,
      String waitTimeout) {
    return of(name, Duration.parse(lockAtMostFor), Duration.parse(lockAtLeastFor), onBusy,
        Duration.parse(waitTimeout));
  }

  static SingleFlightSpec of(String name, Duration lockAtMostFor, Duration lockAtLeastFor, OnBusy onBusy,
      Duration waitTimeout) {
    return new SingleFlightSpec(name, lockAtMostFor, lockAtLeastFor, onBusy, waitTimeout);
  }

  String name() {
    return name;
  }

  Duration lockAtMostFor() {
    return lockAtMostFor;
  }

  Duration lockAtLeastFor() {
    return lockAtLeastFor;
  }

  OnBusy onBusy() {
    return onBusy;
  }

  Duration waitTimeout() {
    return waitTimeout;
  }
}
