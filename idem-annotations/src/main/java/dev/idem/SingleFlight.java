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
   * {@return the lock's name, shared by every instance that must not run the body at the same time} Unique per
   * runtime among the {@code @SingleFlight} methods of a compilation. Default: {@code <Interface>.<method>}.
   */
  String name() default "";

  /**
   * {@return the lease, an ISO-8601 duration} After it another instance may take the lock when this one crashed. The
   * watchdog renews it while the body runs, so it bounds how long a crashed holder blocks others, not how long the
   * body may run. Two to three times a renewal's worst round trip at the very least; minutes are usual.
   */
  String lockAtMostFor() default "PT10M";

  /**
   * {@return how long the lock is held at least, an ISO-8601 duration} Even when the body ends sooner, so
   * that a job a fast instance ran is not run again by an instance whose timer fires a moment later. Less than
   * {@link #lockAtMostFor()}.
   */
  String lockAtLeastFor() default "PT0S";

  /** {@return what a call does when another instance holds the lock} */
  OnBusy onBusy() default OnBusy.SKIP;

  /** {@return the longest a call waits for the lock, an ISO-8601 duration} {@link OnBusy#WAIT} only. */
  String waitTimeout() default "PT1M";
}
