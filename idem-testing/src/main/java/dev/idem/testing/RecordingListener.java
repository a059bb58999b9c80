package dev.idem.testing;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Records every event of a listener interface (idem's {@code IdempotencyListener}, {@code TransitionListener}, ...)
 * as a line such as {@code "replayed Payments.pay req-1"} (or {@code "replayed req-1"} without the first argument,
 * the scope), so that tests can assert on the sequence of decisions the runtime made.
 *
 * <p>The recorder is a dynamic proxy of the interface, so that this module needs no idem module (the runtime's own
 * tests use it) and serves every listener interface alike. Fixtures only: never on a measured path.
 */
public final class RecordingListener {

  private RecordingListener() {}

  /**
   * Records {@code "<event> <every argument>"} into {@code events}, which must be thread-safe.
   *
   * @param listenerType the listener interface
   * @param events where the lines go
   * @param <L> the listener interface
   * @return the recording listener
   */
  public static <L> L withScope(Class<L> listenerType, List<String> events) {
    return recording(listenerType, events, 0);
  }

  /**
   * Records {@code "<event> <every argument but the first>"} (for idem's listener: the key, without the scope)
   * into {@code events}, which must be thread-safe.
   *
   * @param listenerType the listener interface
   * @param events where the lines go
   * @param <L> the listener interface
   * @return the recording listener
   */
  public static <L> L keysOnly(Class<L> listenerType, List<String> events) {
    return recording(listenerType, events, 1);
  }

  private static <L> L recording(Class<L> listenerType, List<String> events, int skippedArguments) {
    if (!listenerType.isInterface()) {
      throw new IllegalArgumentException(listenerType + " is not an interface");
    }
    Object proxy = Proxy.newProxyInstance(listenerType.getClassLoader(), new Class<?>[] {listenerType},
        (self, method, args) -> {
          if (method.getDeclaringClass() == Object.class) {
            return objectMethod(self, method, args, listenerType);
          }
          Object[] arguments = args == null ? new Object[0] : args;
          events.add(Arrays.stream(arguments).skip(skippedArguments).map(String::valueOf)
              .collect(Collectors.joining(" ", method.getName() + " ", "")).strip());
          return null;
        });
    return listenerType.cast(proxy);
  }

  private static Object objectMethod(Object self, Method method, Object[] args, Class<?> listenerType) {
    switch (method.getName()) {
      case "equals":
        return self == args[0];
      case "hashCode":
        return System.identityHashCode(self);
      default:
        return "RecordingListener(" + listenerType.getSimpleName() + ")";
    }
  }
}
