package dev.idem;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method of a service interface as a guarded state transition of a JPA entity: the processor generates
 * {@code UPDATE <table> SET <state> = :to WHERE <id> = :id AND <state> IN (:from...)}. A repeat of an applied
 * transition is a success; a transition from any other state is an error.
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.CLASS)
public @interface StateTransition {

  /** The entity, a class annotated {@code @jakarta.persistence.Entity}. */
  Class<?> entity();

  /** The entity's state field. */
  String field() default "status";

  /** The states the transition may start from. */
  String[] from();

  /** The target state. */
  String to();

  /** States past {@link #to()} in which a repeat is still a success without effect (e.g. {@code SHIPPED} for pay). */
  String[] alsoAccept() default {};

  /** Records every applied transition in the transition log (also enabled for all transitions on the runtime). */
  boolean log() default false;
}
