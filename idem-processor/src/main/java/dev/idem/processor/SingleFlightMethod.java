package dev.idem.processor;

import javax.lang.model.element.ExecutableElement;
import javax.lang.model.type.ExecutableType;

/**
 * A {@code @SingleFlight} method: the generated class runs the delegate's method under the lock {@code name}.
 *
 * @param name the lock's name
 * @param lockAtMostFor ISO-8601, checked
 * @param lockAtLeastFor ISO-8601, checked
 * @param onBusy the {@code dev.idem.OnBusy} constant's name
 * @param waitTimeout ISO-8601, checked
 * @param returnsOptional whether the method returns {@code Optional<T>} (else void)
 */
record SingleFlightMethod(ExecutableElement method, ExecutableType type, String name, String lockAtMostFor,
                          String lockAtLeastFor, String onBusy, String waitTimeout, boolean returnsOptional)
    implements MethodModel {}
