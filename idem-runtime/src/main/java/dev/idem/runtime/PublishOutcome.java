package dev.idem.runtime;

import java.util.Objects;

/**
 * What became of one {@link OutboxMessage} handed to an {@link OutboxPublisher}.
 *
 * @param status sent, to be retried later, or parked for good
 * @param reason why it was not sent (null when sent): kept with a parked row for the operator
 */
public record PublishOutcome(Status status, String reason) {

  /** What the relay does next with the row. */
  public enum Status {
    /** The broker confirmed it (publisher confirm, acks=all, JetStream's PubAck): the row is marked sent. */
    SENT,
    /**
     * Not confirmed, for a reason that may pass (broker down, timeout, no confirm): the row is published again
     * after a backoff. It may have reached the broker: consumers deduplicate by the message id.
     */
    RETRY,
    /**
     * The broker can never take it (too large, rejected as malformed, no such destination by policy): the row is
     * parked with the reason and never blocks the others.
     */
    PARK
  }

  private static final PublishOutcome SENT = new PublishOutcome(Status.SENT, null);

  /**
   * Requires a reason for every outcome but {@link Status#SENT}.
   *
   * @param status see the record's description
   * @param reason see the record's description
   */
  public PublishOutcome {
    Objects.requireNonNull(status, "status");
    if (status != Status.SENT) {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** @return the outcome of a confirmed message */
  public static PublishOutcome sent() {
    return SENT;
  }

  /**
   * @param reason what went wrong, for logs and metrics
   * @return the outcome of a message to publish again after a backoff
   */
  public static PublishOutcome retry(String reason) {
    return new PublishOutcome(Status.RETRY, reason);
  }

  /**
   * @param reason why the broker can never take it, kept with the parked row
   * @return the outcome of a message to park
   */
  public static PublishOutcome park(String reason) {
    return new PublishOutcome(Status.PARK, reason);
  }
}
