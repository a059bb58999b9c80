package dev.idem;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method of a service interface as a business action that must run once per key, however often it is
 * retried. The processor generates {@code <Interface>_Idempotent}, whose implementation of this method claims the
 * key built from the {@link IdempotencyKey} parameters, runs the delegate once and replays the stored result to
 * every retry.
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.CLASS)
public @interface IdempotentCommand {

  /**
   * Namespace of this command's keys. Two commands may share a key value without colliding because their scopes
   * differ. Defaults to the fully qualified interface name and the method, {@code com.acme.Payments.pay} (nested:
   * {@code com.acme.Outer.Inner.pay}), so that equal interface names in two packages never share results; set it
   * explicitly to keep stored records valid across a rename or a move, and where the default exceeds 128
   * characters (a compile error says so).
   */
  String scope() default "";

  /**
   * ISO-8601 duration for which a completed result is kept and replayed, e.g. {@code PT15M}, {@code P1D},
   * {@code P30D}. After it, the key runs anew and the record may be purged.
   */
  String retention() default "P1D";

  /** How the key is claimed relative to the delegate's work. */
  Mode mode() default Mode.TRANSACTIONAL;

  /**
   * {@link Mode#CLAIM} only: ISO-8601 duration an in-flight claim holds before another caller may take it over.
   */
  String lease() default "PT30S";

  /** {@link Mode#CLAIM} only: what a second caller does while the first still holds the key. */
  InFlight onInFlight() default InFlight.FAIL;

  /** {@link Mode#CLAIM} with {@link InFlight#WAIT} only: how long to wait for the first caller's result. */
  String waitTimeout() default "PT10S";

  /**
   * {@link Mode#CLAIM} only: what a lease that ended before its owner recorded an outcome means. {@code TAKE_OVER}
   * (at-least-once: the next caller runs the body again) or {@code PARK} (at-most-once: the key turns
   * {@code OUTCOME_UNKNOWN} for an operator or your reconciliation).
   */
  ExpiredLease onExpiredLease() default ExpiredLease.TAKE_OVER;

  /**
   * {@link Mode#CLAIM} only: what a body's exception that {@link #replayOn()} does not list does to the key.
   * {@code RELEASE} (a retry runs the body again) or {@code PARK} (the key turns {@code OUTCOME_UNKNOWN}).
   */
  UndeclaredFailure onUndeclaredFailure() default UndeclaredFailure.RELEASE;

  /**
   * Exception types that are business outcomes (a declined card): when the delegate throws one of them, it is
   * stored and every retry rethrows an equal exception. Any other exception is not stored and a retry runs again.
   */
  Class<? extends Throwable>[] replayOn() default {};
}
