package dev.idem.runtime;

import java.util.Objects;

/**
 * A lease on a single-flight lock, as a {@link LockProvider} granted it: single-use, identified by an owner token
 * that no other acquisition shares, and carrying the fencing token that this acquisition received.
 */
public final class LockLease {

  private final String name;
  private final String ownerToken;
  private final long fencingToken;

  /**
   * @param name the lock's name
   * @param ownerToken this acquisition's own token; renewal and release are fenced by it
   * @param fencingToken the number the store gave this acquisition, greater than any earlier acquisition's of the
   *     same name
   */
  public LockLease(String name, String ownerToken, long fencingToken) {
    this.name = Objects.requireNonNull(name, "name");
    this.ownerToken = Objects.requireNonNull(ownerToken, "ownerToken");
    this.fencingToken = fencingToken;
  }

  /** @return the lock's name */
  public String name() {
    return name;
  }

  /** @return this acquisition's owner token */
  public String ownerToken() {
    return ownerToken;
  }

  /**
   * @return the fencing token: strictly greater than every earlier acquisition's of this name; pass it to the
   *     storage the body writes (see {@link FencedUpdate}) so that a holder that lost its lease cannot overwrite a
   *     later holder's writes
   */
  public long fencingToken() {
    return fencingToken;
  }

  @Override
  public String toString() {
    return "LockLease[" + name + ", fence " + fencingToken + "]";
  }
}
