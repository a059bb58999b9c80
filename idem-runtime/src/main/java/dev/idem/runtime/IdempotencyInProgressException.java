package dev.idem.runtime;

import java.time.Instant;

/**
 * Another caller holds an unexpired claim on the key of a {@code CLAIM} command and is still working on it, or, for a
 * {@code TRANSACTIONAL} command, its uncommitted claim held the key for longer than this caller could wait on it (the
 * database's lock timeout, every attempt). Nothing ran: retry after {@link #leaseEndsAt()} at the latest (a
 * {@code CLAIM} command), or later (a {@code TRANSACTIONAL} one, whose claim has no lease: a retry after the other
 * caller's commit replays its result, after its rollback runs the command).
 */
public class IdempotencyInProgressException extends IdempotencyException {

  private static final long serialVersionUID = 1L;

  private final String scope;
  private final String key;
  private final Instant leaseEndsAt;

  /**
   * @param scope the command's scope
   * @param key the composed idempotency key
   * @param leaseEndsAt when the current owner's lease ends
   */
  public IdempotencyInProgressException(String scope, String key, Instant leaseEndsAt) {
    super("Idempotency key '" + key + "' of " + scope + " is being processed by another caller whose lease ends at "
        + leaseEndsAt + "; retry later");
    this.scope = scope;
    this.key = key;
    this.leaseEndsAt = leaseEndsAt;
  }

  /**
   * For a {@code TRANSACTIONAL} command: another caller's transaction held the key's claim through every attempt to
   * claim it.
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   * @param cause the last attempt's lock timeout
   */
  public IdempotencyInProgressException(String scope, String key, Throwable cause) {
    super("Idempotency key '" + key + "' of " + scope + " is being processed by another caller, whose transaction"
        + " held its claim for longer than this caller waited on it (the database's lock timeout, at every attempt);"
        + " retry later: a retry after it commits replays its result", cause);
    this.scope = scope;
    this.key = key;
    this.leaseEndsAt = null;
  }

  /**
   * For a {@code TRANSACTIONAL} command: the front tier ({@link IdemRuntime.Builder#frontTier}) holds another caller's
   * in-flight mark of the key.
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   */
  public IdempotencyInProgressException(String scope, String key) {
    super("Idempotency key '" + key + "' of " + scope + " is being processed by another caller (its in-flight mark"
        + " in the front tier); retry shortly: a retry after it commits replays its result, after its rollback runs"
        + " the command");
    this.scope = scope;
    this.key = key;
    this.leaseEndsAt = null;
  }

  /** @return the command's scope */
  public String scope() {
    return scope;
  }

  /** @return the composed idempotency key */
  public String key() {
    return key;
  }

  /**
   * @return when the current owner's lease ends, by the runtime's clock (the database's lease end minus the measured
   *     offset, see {@link IdemRuntime.Builder#databaseTime(boolean)}); after it, another caller may take the key
   *     over. While the owner extends its lease in its open transaction, a lease from now. Null for a
   *     {@code TRANSACTIONAL} command, whose claim has no lease.
   */
  public Instant leaseEndsAt() {
    return leaseEndsAt;
  }
}
