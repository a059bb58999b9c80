package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdempotencyListener;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SafeListenerTest {

  /** A listener that records each call, then fails. */
  private final List<String> calls = new ArrayList<>();
  private final IdempotencyListener failing = (IdempotencyListener) Proxy.newProxyInstance(
      IdempotencyListener.class.getClassLoader(), new Class<?>[] {IdempotencyListener.class},
      (proxy, method, args) -> {
        calls.add(method.getName() + Arrays.toString(args));
        throw new IllegalStateException("listener bug in " + method.getName());
      });

  @Test
  void everyEventReachesItsOwnListenerMethodAndAFailingListenerIsIgnored() throws Exception {
    SafeListener safe = new SafeListener(failing);
    Method[] events = IdempotencyListener.class.getDeclaredMethods();
    assertTrue(events.length >= 9, "the listener's events: " + events.length);
    for (Method event : events) {
      // Every listener method has its safe counterpart, with the same name and parameters.
      Method counterpart = SafeListener.class.getDeclaredMethod(event.getName(), event.getParameterTypes());
      calls.clear();
      Object[] arguments = argumentsFor(event);
      counterpart.invoke(safe, arguments); // throws if the listener's failure escapes
      assertEquals(List.of(event.getName() + Arrays.toString(arguments)), calls);
    }
  }

  /** Distinct arguments of the event's parameter types, so that a swapped or dropped argument shows. */
  private static Object[] argumentsFor(Method event) {
    Class<?>[] types = event.getParameterTypes();
    Object[] arguments = new Object[types.length];
    for (int i = 0; i < types.length; i++) {
      if (types[i] == String.class) {
        arguments[i] = event.getName() + "-" + i;
      } else if (types[i] == long.class) {
        arguments[i] = 1_000L + i;
      } else if (types[i] == int.class) {
        arguments[i] = 100 + i;
      } else if (types[i] == boolean.class) {
        arguments[i] = Boolean.TRUE;
      } else if (types[i] == Throwable.class) {
        arguments[i] = new IllegalStateException("failure " + i);
      } else {
        throw new AssertionError("No test argument for " + types[i] + " of " + event);
      }
    }
    return arguments;
  }
}
