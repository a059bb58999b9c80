package dev.idem;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a {@code long} parameter of a {@link StateTransition} method holding the version the caller last read; the
 * transition then applies only {@code AND version = ?}. The entity must have a {@code @Version} field.
 */
@Documented
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.CLASS)
public @interface ExpectedVersion {}
