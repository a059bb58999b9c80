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
   * {@return the namespace of this command's keys} Two commands may share a key value without colliding because
   * their scopes differ. Defaults to the fully qualified interface name and the method,
   * {@code com.acme.Payments.pay} (nested: {@code com.acme.Outer.Inner.pay}), so that equal interface names in two
   * packages never share results; set it explicitly to keep stored records valid across a rename or a move, and
   * where the default exceeds 128 characters (a compile error says so).
   */
  String scope() default "";

  /**
   * {@return the dedup window: the ISO-8601 duration for which a completed result is replayed and another payload
   * refused as a reused key} E.g. {@code PT15M}, {@code P1D}, {@code P30D}. After it, the key runs anew and the record
   * may be purged once the runtime's archive horizon passes too ({@code IdemRuntime.Builder.keepAfterDedupWindow},
   * default zero: purged right after the window).
   */
  String retention() default "P1D";

  /**
   * {@return whether the key's first part carries the time it was made, and in which format} Default
   * {@link KeyTime#NONE}; {@link KeyTime#UUID_V7} and {@link KeyTime#ULID} for producers' ids that carry it. On a
   * runtime whose records are partitioned by day ({@code RecordLayout.DAY_PARTITIONS}), a key that carries its time
   * is filed under the day of that time, so that every retry of it meets the first record in one partition: the
   * claim is one {@code INSERT … ON CONFLICT} without the per-key lock and the probe of the dedup window's days. A
   * key whose time lies outside the dedup window (or more than a day ahead) is refused as invalid. On one table it
   * changes nothing. The processor checks that the first key part is a {@code String} (or a {@code UUID} for
   * {@code UUID_V7}).
   */
  KeyTime keyTime() default KeyTime.NONE;

  /** {@return how the key is claimed relative to the delegate's work} */
  Mode mode() default Mode.TRANSACTIONAL;

  /**
   * {@return the ISO-8601 duration an in-flight claim holds before another caller may take it over}
   * {@link Mode#CLAIM} only.
   */
  String lease() default "PT30S";

  /** {@return what a second caller does while the first still holds the key} {@link Mode#CLAIM} only. */
  InFlight onInFlight() default InFlight.FAIL;

  /**
   * {@return how long to wait for the first caller's result} {@link Mode#CLAIM} with {@link InFlight#WAIT} only.
   */
  String waitTimeout() default "PT10S";

  /**
   * {@return what a lease that ended before its owner recorded an outcome means} {@link Mode#CLAIM} only.
   * {@code TAKE_OVER} (at-least-once: the next caller runs the body again) or {@code PARK} (at-most-once: the key
   * turns {@code OUTCOME_UNKNOWN} for an operator or your reconciliation).
   */
  ExpiredLease onExpiredLease() default ExpiredLease.TAKE_OVER;

  /**
   * {@return what a body's exception that {@link #replayOn()} does not list does to the key} {@link Mode#CLAIM}
   * only. {@code RELEASE} (a retry runs the body again) or {@code PARK} (the key turns {@code OUTCOME_UNKNOWN}).
   */
  UndeclaredFailure onUndeclaredFailure() default UndeclaredFailure.RELEASE;

  /**
   * {@return where the command's records live} Default {@link Store#DATABASE}. {@link Store#REDIS} keeps them in
   * Redis alone, with no database round trip, for work that tolerates a rare repeat; it requires
   * {@code mode = Mode.CLAIM} (Redis cannot join the body's database transaction), the default
   * {@code onExpiredLease} and {@code onUndeclaredFailure} (parking needs the database's records) and no
   * {@code keyTime}, and the runtime must have a record store ({@code IdemRuntime.Builder.recordStore}). See
   * {@link Store#REDIS} for when such a command can run twice.
   */
  Store store() default Store.DATABASE;

  /**
   * {@return whether every call reads the key's record before claiming it} With {@code true}, a call that starts
   * outside any transaction first reads the key's record in auto-commit mode: a retry of a completed key is then
   * replayed from that one read, with no transaction; any other record (none, in progress, expired, parked) goes on
   * to the claim, which decides as always, so a first execution pays one extra read. Default {@code false}: the
   * runtime chooses per command from its traffic (see {@code IdemRuntime.Builder.adaptiveLookupFirst}): it claims
   * first, the cheapest path for a first execution, while most calls are first executions, and reads first while
   * most calls are retries of completed keys. Set it for commands whose calls are always mostly retries (webhooks,
   * clients that retry aggressively), so that even the first calls after a start read first. Inside a transaction
   * the command joins, the claim comes first all the same. Only with {@code store = Store.DATABASE}.
   */
  boolean lookupFirst() default false;

  /**
   * {@return a window within which the same caller sending the same payload is one action, for callers that send no
   * key} (A form posted twice, a gateway that retries.) ISO-8601, e.g. {@code "PT5S"} or {@code "PT1M"}; empty (the
   * default): the key is the {@link IdempotencyKey} parameters. With a window the command has no
   * {@code @IdempotencyKey}: its key is derived from the {@link #identity()} parameter plus a canonical hash of all
   * other parameters, and the window is its dedup window (it replaces {@link #retention()}). The window starts at
   * the first call and is held by that call's record's own expiry, not by a clock bucket, so two clicks 100 ms apart
   * are one action whatever boundary lies between them.
   */
  String window() default "";

  /**
   * {@return the name of the parameter that identifies the caller, for a command with a {@link #window()}} (The
   * user's id, the session's.) Its value is the key's first part; it must be a String, UUID, integral number or
   * enum, like a key part.
   */
  String identity() default "";

  /**
   * {@return the exception types that are business outcomes} (A declined card.) When the delegate throws one of
   * them, it is stored and every retry rethrows an equal exception. Any other exception is not stored and a retry
   * runs again.
   */
  Class<? extends Throwable>[] replayOn() default {};
}
