package dev.idem;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the parameter of a {@link StateTransition} method that holds the entity's id. Its type must be the type of
 * the entity's {@code @Id} (a primitive for its wrapper or the reverse is fine).
 */
@Documented
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.CLASS)
public @interface EntityId {}
