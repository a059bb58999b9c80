package dev.idem;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method of a service interface as a guarded state transition of a JPA entity. The processor reads the
 * entity's mapping at compile time ({@code @Table}, {@code @Id}, {@code @Column}, {@code @Enumerated},
 * {@code @Version}, with the JPA defaults) and generates one statement:
 *
 * <pre>UPDATE orders SET status = 'PAID'[, version = version + 1] WHERE id = ? AND status IN ('CREATED')[ AND version = ?]</pre>
 *
 * <p>One row updated: the transition is applied. No row: the current state decides: {@link #to()} or a state in
 * {@link #alsoAccept()} means a repeat, a success without effect; any other state throws
 * {@code IllegalStateTransitionException}; no such id throws {@code NoSuchEntityException}. So a repeated
 * callback is harmless and a stale one can never move the entity backwards, however many callers race.
 *
 * <p>The method takes the id as its one {@link EntityId} parameter, optionally an {@link ExpectedVersion}, and
 * returns {@code TransitionResult} ({@code APPLIED} or {@code ALREADY_APPLIED}), {@code boolean} (true when this
 * call applied it) or {@code void}. It joins the transaction in progress on the runtime, else runs in its own.
 * The state field is an enum (stored as {@code @Enumerated} says, ordinal by default) or a String; for an enum,
 * every state named here must be one of its constants, which the compiler checks.
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.CLASS)
public @interface StateTransition {

  /** {@return the entity, a class annotated {@code @jakarta.persistence.Entity}} */
  Class<?> entity();

  /** {@return the entity's state field (its Java name, not its column)} */
  String field() default "status";

  /** {@return the states the transition may start from} The target state may not be among them. */
  String[] from();

  /** {@return the target state} */
  String to();

  /**
   * {@return the states past {@link #to()} in which a repeat is still a success without effect} (E.g.
   * {@code SHIPPED} for pay.)
   */
  String[] alsoAccept() default {};

  /**
   * {@return whether every applied transition is recorded in the transition log} (Also enabled for all transitions
   * on the runtime.)
   */
  boolean log() default false;
}
