package dev.idem.runtime.internal;

import dev.idem.runtime.Reconciliation;

/**
 * A call of the delegate's {@code @Reconciles} method with the arguments of the command call it belongs to, which
 * generated code hands the engine with the command's body ({@link CommandBody#reconciledBy}).
 *
 * @param <T> the command's result type
 */
@IdemInternal
@FunctionalInterface
public interface CommandReconciler<T> {

  /**
   * Asks the external system whether the parked call's effect happened.
   *
   * @return the answer
   * @throws Exception anything: the key stays parked and the retry's exception carries it
   */
  Reconciliation<T> reconcile() throws Exception;
}
