package dev.idem.runtime;

/**
 * A single-flight body's lease was lost while it ran: a renewal found the lease ended or taken by another instance,
 * or no renewal succeeded before the lease would end (the database was unreachable), or the release found the lock
 * another holder's. The body's thread was interrupted when the loss was noticed; another instance may have started
 * the same work. Writes fenced with this acquisition's {@link #fencingToken()} after another instance took the lock
 * are rejected by the storage (see {@link FencedUpdate}).
 *
 * <p>When the body itself failed, its failure is this exception's {@linkplain #getCause() cause}.
 */
public class SingleFlightLockLostException extends IdempotencyException {

  private static final long serialVersionUID = 1L;

  private final String lockName;
  private final long fencingToken;

  /**
   * @param lockName the lock's name
   * @param fencingToken the fencing token of the lost lease
   * @param reason why it counts as lost
   * @param bodyFailure what the body threw, or null
   */
  public SingleFlightLockLostException(String lockName, long fencingToken, String reason, Throwable bodyFailure) {
    super("The single-flight lock '" + lockName + "' (fencing token " + fencingToken + ") was lost while its body"
        + " ran: " + reason + "; another instance may have started the same work, and writes fenced with this"
        + " token are rejected once it has" + (bodyFailure == null ? "" : " (the body's failure is the cause)"),
        bodyFailure);
    this.lockName = lockName;
    this.fencingToken = fencingToken;
  }

  /** @return the lock's name */
  public String lockName() {
    return lockName;
  }

  /** @return the fencing token of the lost lease */
  public long fencingToken() {
    return fencingToken;
  }
}
