package dev.idem.runtime;

import java.time.Instant;

/**
 * The body of a {@code CLAIM} command returned (so its effects outside the database happened), but its outcome
 * could not be recorded: the result could not be written as JSON, was larger than
 * {@link IdemRuntime.Builder#maxResultSize(int)}, or the completing statement failed (e.g. MariaDB's
 * {@code max_allowed_packet}, a connection cut). The body's database writes were rolled back. The record is kept in
 * state {@code OUTCOME_UNKNOWN}: every retry gets this exception and never runs the body again; the key is never
 * released nor taken over when the lease ends. It runs again only after the record's retention ends, or after an
 * operator checked the external system and called {@link IdemRuntime#forget} or {@link IdemRuntime#resolve}.
 *
 * <p>If even recording {@code OUTCOME_UNKNOWN} failed (the database is unreachable), {@link #recorded()} is false:
 * idem keeps trying in the background until the lease ends; only if the database stays unreachable that long (or
 * this process dies meanwhile) is the claim taken over as after a crash, and a retry then runs the command again.
 */
public class IdempotencyOutcomeUnknownException extends IdempotencyException {

  private static final long serialVersionUID = 1L;

  private final String scope;
  private final String key;
  private final Instant since;
  private final String problem;
  private final boolean recorded;

  /**
   * @param scope the command's scope
   * @param key the composed idempotency key
   * @param since when the outcome was found not recordable
   * @param problem what failed
   * @param recorded whether the {@code OUTCOME_UNKNOWN} state is recorded (false: the claim holds until its lease
   *     ends)
   * @param cause the failure, or null (a retry meeting the recorded state)
   */
  public IdempotencyOutcomeUnknownException(String scope, String key, Instant since, String problem,
      boolean recorded, Throwable cause) {
    super("The outcome of " + scope + " key '" + key + "' is unknown since " + since + ": its body returned (its"
        + " effects outside the database happened), but " + problem + ". "
        + (recorded
            ? "The record is kept as OUTCOME_UNKNOWN: retries get this exception and never run the body again;"
                + " check the external system, then IdemRuntime.resolve(...) or forget(...) the key, or let the"
                + " record's retention end"
            : "Recording that failed too: idem keeps trying in the background until the claim's lease ends;"
                + " if the database stays unreachable that long, the claim is taken over as after a crash and a"
                + " retry runs the command again"), cause);
    this.scope = scope;
    this.key = key;
    this.since = since;
    this.problem = problem;
    this.recorded = recorded;
  }

  /** @return the command's scope */
  public String scope() {
    return scope;
  }

  /** @return the composed idempotency key */
  public String key() {
    return key;
  }

  /** @return when the outcome was found not recordable */
  public Instant since() {
    return since;
  }

  /** @return what failed */
  public String problem() {
    return problem;
  }

  /** @return whether the record is kept as {@code OUTCOME_UNKNOWN}; false if the claim holds until its lease ends */
  public boolean recorded() {
    return recorded;
  }
}
