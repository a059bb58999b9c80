package dev.idem;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a {@code long} or {@code int} parameter of a {@link StateTransition} method holding the version the caller
 * last read; the transition then applies only {@code AND version = ?}, and a stale version is rejected even when
 * the state would allow the transition. The entity must have a {@code @Version} field (which every transition
 * increments, with or without this parameter).
 */
@Documented
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.CLASS)
public @interface ExpectedVersion {}
