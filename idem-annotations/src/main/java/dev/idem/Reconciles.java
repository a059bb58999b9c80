package dev.idem;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The method reconciles a parked CLAIM command of the same interface: given the arguments of a call whose outcome is
 * unknown ({@code OUTCOME_UNKNOWN}, under {@code onExpiredLease = PARK} or {@code onUndeclaredFailure = PARK}), it
 * asks the external system whether the effect happened and answers with a {@code dev.idem.runtime.Reconciliation}:
 * happened (with the result), did not happen, or still unknown. When a retry meets the parked key, the generated
 * class has idem ask it, with the retry's arguments (the payload fingerprint proves they are the parked call's),
 * under the record's row lock so that concurrent retries ask once; idem then resolves the key with the result,
 * or deletes it and runs the command, or leaves it parked.
 *
 * <p>Its parameters are the command's, in the same order and of the same types; it returns
 * {@code Reconciliation<R>} where {@code R} is the command's result type ({@code Void} for a void command). The
 * generated class forwards it to the delegate unchanged. Checked at compile time (IDEM-097 to 099, IDEM-140 to
 * 143).
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.CLASS)
public @interface Reconciles {

  /** {@return the name of the CLAIM command method of this interface that this method reconciles} */
  String value();
}
