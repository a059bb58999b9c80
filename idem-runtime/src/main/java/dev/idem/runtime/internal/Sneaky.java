package dev.idem.runtime.internal;

import dev.idem.runtime.IdemRuntime;
/**
 * Rethrows any throwable, checked ones included, without wrapping or declaring it. idem must hand
 * the business exception of a command to the caller unchanged (same instance) although
 * {@link IdemEngine#execute} cannot declare the checked exceptions of every service method; the
 * generated method declares them, so callers still see them at compile time. This is the only
 * place that defeats checked exceptions.
 */
final class Sneaky {

  private Sneaky() {}

  /** Usage: {@code throw Sneaky.rethrow(t);} (the return type only keeps the compiler happy). */
  static RuntimeException rethrow(Throwable t) {
    throw Sneaky.<RuntimeException>uncheckedThrow(t);
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> E uncheckedThrow(Throwable t) throws E {
    throw (E) t;
  }
}
