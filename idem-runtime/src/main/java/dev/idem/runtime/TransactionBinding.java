package dev.idem.runtime;

import java.sql.Connection;

/**
 * Where idem finds the transaction the application already has on the current thread, so that a command's record
 * commits or rolls back with the application's own writes (see {@link IdemRuntime.Builder#joinTransactions}).
 *
 * <p>idem asks {@link #currentConnection()} whenever a {@code TRANSACTIONAL} command, a batch, a transition or
 * {@link IdemRuntime#inTransaction} work starts on a thread where no transaction of idem's own is in progress. If it
 * returns a connection, idem runs its statements on it, inside savepoints of its own, and never commits it, rolls it
 * back whole or closes it: the application's transaction decides. If it returns null, idem begins a transaction of
 * its own, as without a binding.
 *
 * <p>Implementations are called on the application's thread and must be cheap: {@link #currentConnection()} runs
 * once per command outside idem's own transactions.
 */
public interface TransactionBinding {

  /**
   * The connection of the application's transaction in progress on this thread, or null if it has none. idem runs
   * its statements on it, inside savepoints of its own; it never commits it, rolls it back whole, or closes it.
   *
   * @return the connection, in a transaction (auto-commit off), or null
   */
  Connection currentConnection();

  /**
   * Called inside the application's transaction after a command's body returned, before idem completes its record:
   * push pending writes to the connection (JPA: flush), so that they commit or roll back with the record. An
   * exception thrown here counts as the body's failure. Also called before idem's statements start in the
   * application's transaction (before a command's or batch's savepoint, before a transition's update and
   * {@link IdemRuntime#inTransaction} work), so that they see the application's pending writes and a rollback to
   * idem's savepoint cannot undo writes the application made before it called idem.
   */
  default void flush() {}

  /**
   * Called when a command's body threw inside the application's transaction, after idem rolled back to its
   * savepoint (JPA: mark the transaction rollback-only, or clear what the body left in the persistence context).
   * A {@code replayOn} failure, which idem records as the command's outcome, goes to {@link #failureRecorded}
   * instead.
   *
   * @param failure what the body threw (or what {@link #flush()} threw)
   */
  default void bodyFailed(Throwable failure) {}

  /**
   * Registers {@code action} to run after the application's transaction commits; false if this binding cannot
   * (idem then does not cache what it recorded there, and reports completion at once, and
   * {@link IdemRuntime#afterCommit(Runnable)} inside that transaction throws).
   *
   * @param action what to run once the transaction committed; never if it rolls back
   * @return whether the action was registered
   */
  default boolean afterCommit(Runnable action) {
    return false;
  }

  /**
   * Called when a command's body threw a {@code replayOn} failure inside the application's transaction, after idem
   * rolled back the body's writes to the savepoint taken after its claim, and before it stores the failure in the
   * record as the command's outcome. That record commits only if the application's transaction does: a binding that
   * marks it rollback-only here discards the stored failure too, so a retry runs the body again. The default treats
   * it as any other failure ({@link #bodyFailed}).
   *
   * @param failure what the body threw
   */
  default void failureRecorded(Throwable failure) {
    bodyFailed(failure);
  }

  /**
   * Called inside the application's transaction after a {@code @StateTransition}'s guarded update changed an
   * entity's row on the connection, behind the back of any object-relational mapper: a binding refreshes or evicts
   * the instance it may hold for that row (JPA: a managed entity would keep the old state and version, and write the
   * old state back on its next flush).
   *
   * @param entityName the JPA entity name of the entity ({@code @Entity(name)}, by default the class's simple name)
   * @param id the entity's id, as passed to the transition
   */
  default void entityChanged(String entityName, Object id) {}
}
