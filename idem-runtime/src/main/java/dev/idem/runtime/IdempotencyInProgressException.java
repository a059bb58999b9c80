package dev.idem.runtime;

import java.time.Instant;

/**
 * Another caller holds an unexpired claim on the key of a {@code CLAIM} command and is still working on it. Nothing
 * ran: retry after {@link #leaseEndsAt()} at the latest, when the claim may be taken over if its owner died.
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
   *     over. While the owner extends its lease in its open transaction, a lease from now.
   */
  public Instant leaseEndsAt() {
    return leaseEndsAt;
  }
}
