package dev.idem;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The method writes one event into the transactional outbox ({@code idem_outbox}) in the caller's transaction: the
 * event exists if and only if that transaction commits, and a relay ({@code IdemRuntime.startOutboxRelay}) publishes
 * it afterwards, at least once, with its row's id as the message id.
 *
 * <p>Put it on the methods of a plain interface whose every abstract method carries it; idem generates
 * {@code <Interface>_Outbox}, built with {@code new <Interface>_Outbox(runtime)}. A method takes the payload (a type
 * whose values read back exactly, checked like a command's result) and, optionally, a second parameter
 * {@code Map<String, String>} of headers; it returns {@code void} or {@code String} (the message id). Called
 * outside any transaction (idem's own or the application's joined one) it throws
 * {@code OutboxTransactionRequiredException} and writes nothing.
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.CLASS)
public @interface OutboxEvent {

  /** {@return where the event goes: an exchange, a topic or a subject (1 to 255 characters, no blanks around)} */
  String destination();

  /**
   * {@return the payload's property path whose value is the event's partition key} (Kafka's record key, what keeps
   * related events in order), as {@code @IdempotencyKey} paths: {@code orderId}, {@code customer.id}; its value is
   * written as text. Empty: no key.
   */
  String key() default "";

  /** {@return the event's type, as consumers see it} Default: the payload type's simple name. */
  String type() default "";
}
