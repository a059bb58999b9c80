package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdempotencyListener;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SafeListenerTest {

  /** A listener that records each call, then fails. */
  private final List<String> calls = new ArrayList<>();
  private final IdempotencyListener failing = (IdempotencyListener) Proxy.newProxyInstance(
      IdempotencyListener.class.getClassLoader(), new Class<?>[] {IdempotencyListener.class},
      (proxy, method, args) -> {
        calls.add(method.getName() + "(" + args[0] + ", " + args[1] + ")");
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
      if (event.getName().equals("commandFinished")) {
        // (scope, failure, elapsedNanos): the latency hook, called once per command call.
        counterpart.invoke(safe, "orders", null, 42L);
        assertEquals(List.of("commandFinished(orders, null)"), calls);
        continue;
      }
      counterpart.invoke(safe, "orders", "k-" + event.getName()); // throws if the listener's failure escapes
      assertEquals(List.of(event.getName() + "(orders, k-" + event.getName() + ")"), calls);
    }
  }
}
