package dev.idem;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The method runs on one instance at a time, across every JVM sharing the database: the generated wrapper takes a
 * lease on the lock row {@link #name()} (owner token, lease end on the database's clock, a fencing token increased
 * in the same statement), runs the delegate, renews the lease while it runs and releases it, keeping it until
 * {@link #lockAtLeastFor()} has passed since it was taken.
 *
 * <p>Return types: {@code void} (a call that did not get the lock returns), or {@code Optional<T>} (it returns
 * {@code Optional.empty()}). If the lease is lost while the body runs (a renewal failed or the lease ended), the
 * body's thread is interrupted and the call throws {@code SingleFlightLockLostException}.
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.CLASS)
public @interface SingleFlight {

  /**
   * The lock's name, shared by every instance that must not run the body at the same time; unique per runtime
   * among the {@code @SingleFlight} methods of a compilation. Default: {@code <Interface>.<method>}.
   */
  String name() default "";

  /**
   * ISO-8601 duration: the lease, after which another instance may take the lock when this one has crashed. The
   * watchdog renews it while the body runs, so it bounds how long a crashed holder blocks others, not how long the
   * body may run. Two to three times a renewal's worst round trip at the very least; minutes are usual.
   */
  String lockAtMostFor() default "PT10M";

  /**
   * ISO-8601 duration: the lock is held at least this long after it was taken, even when the body ends sooner, so
   * that a job a fast instance ran is not run again by an instance whose timer fires a moment later. Less than
   * {@link #lockAtMostFor()}.
   */
  String lockAtLeastFor() default "PT0S";

  /** What a call does when another instance holds the lock. */
  OnBusy onBusy() default OnBusy.SKIP;

  /** {@link OnBusy#WAIT} only: ISO-8601 duration, the longest a call waits for the lock. */
  String waitTimeout() default "PT1M";
}
