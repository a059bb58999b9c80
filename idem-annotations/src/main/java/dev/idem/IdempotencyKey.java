package dev.idem;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a parameter as a part of the idempotency key of an {@link IdempotentCommand}.
 *
 * <p>{@code @IdempotencyKey String requestId} uses the parameter's value. {@code @IdempotencyKey("messageId")
 * OrderPaid msg} reads the accessor path {@code messageId} ({@code messageId()} or {@code getMessageId()}; nested
 * paths such as {@code header.id} are allowed), resolved at compile time. Several key parameters form a composite
 * key in declaration order. Key parts may be {@code String}, {@code UUID}, integral numbers or enums.
 */
@Documented
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.CLASS)
public @interface IdempotencyKey {

  /** {@return the accessor path into the parameter; empty to use the parameter's own value} */
  String value() default "";
}
