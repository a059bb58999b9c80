package dev.idem.runtime.internal;

/**
 * The real work of a command: generated code passes a lambda that calls the delegate.
 *
 * @param <T> the result type ({@link Void} for commands without a result; return {@code null})
 */
@FunctionalInterface
public interface CommandBody<T> {

  /**
   * Runs the work.
   *
   * @return the result
   * @throws Exception anything; idem rethrows it unchanged after rolling back
   */
  T run() throws Exception;

  /**
   * The body of a CLAIM command that declares a reconciler: the engine asks {@code reconciler} when a retry meets
   * the key parked ({@code OUTCOME_UNKNOWN}).
   *
   * @param body the real work
   * @param reconciler the delegate's {@code @Reconciles} method, called with this call's arguments
   * @param <T> the result type
   * @return a body that also carries the reconciler
   */
  static <T> CommandBody<T> reconciledBy(CommandBody<T> body, CommandReconciler<T> reconciler) {
    return new Reconciled<>(body, reconciler);
  }

  /**
   * A body with its reconciler, see {@link #reconciledBy}.
   *
   * @param body the real work
   * @param reconciler the reconciler
   * @param <T> the result type
   */
  record Reconciled<T>(CommandBody<T> body, CommandReconciler<T> reconciler) implements CommandBody<T> {
    /**
     * @param body the real work
     * @param reconciler the reconciler
     */
    public Reconciled {
      java.util.Objects.requireNonNull(body, "body");
      java.util.Objects.requireNonNull(reconciler, "reconciler");
    }

    @Override
    public T run() throws Exception {
      return body.run();
    }
  }
}
