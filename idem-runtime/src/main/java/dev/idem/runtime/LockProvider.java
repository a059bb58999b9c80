package dev.idem.runtime;

import java.time.Duration;
import java.util.Optional;

/**
 * Where single-flight locks live: the boundary between the lock algorithm ({@link IdemRuntime#singleFlight}, the
 * generated code of {@code @SingleFlight}, the watchdog) and a store. The default, the runtime's own
 * ({@link IdemRuntime#lockProvider()}), is the {@code idem_lock} table on the runtime's database, with every time
 * taken by the database itself.
 *
 * <p>A provider must decide every lease by one clock that all instances share (the store's, never a caller's), and
 * must hand out fencing tokens that strictly increase per name across every acquisition, including after a crash of
 * the store's client and a takeover.
 */
public interface LockProvider {

  /**
   * Takes the lock if nobody holds it (its last lease has ended), in one atomic step that also increases the fencing
   * token.
   *
   * @param name the lock's name
   * @param lockAtMostFor the lease: how long others wait for this holder if it never renews nor releases
   * @return the lease, or empty if another holder's lease has not ended
   * @throws IdempotencyStoreException if the store cannot be asked
   */
  Optional<LockLease> tryAcquire(String name, Duration lockAtMostFor);

  /**
   * Extends a lease that is still this holder's and has not ended, to {@code lockAtMostFor} from now.
   *
   * @param lease the lease
   * @param lockAtMostFor the new lease from now
   * @return false if the lease had ended or another holder has the lock: it is lost
   * @throws IdempotencyStoreException if the store cannot be asked (the lease may still be held)
   */
  boolean renew(LockLease lease, Duration lockAtMostFor);

  /**
   * Releases the lock, fenced by the lease's owner token, keeping it until {@code lockAtLeastFor} has passed since
   * it was taken.
   *
   * @param lease the lease
   * @param lockAtLeastFor the least time the lock is held, counted from its acquisition
   * @return false if the lock was not this holder's any more
   * @throws IdempotencyStoreException if the store cannot be asked (the lease then ends by itself)
   */
  boolean release(LockLease lease, Duration lockAtLeastFor);
}
