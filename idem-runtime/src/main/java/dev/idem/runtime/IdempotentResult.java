package dev.idem.runtime;

import java.time.Instant;
import java.util.Objects;

/**
 * A command's result together with what idem knows about it: whether this call replayed a stored outcome instead
 * of running the command, when the command first ran, and until when its record is replayed.
 *
 * <p>Declare it as the return type of an {@code @IdempotentCommand} method to get these facts without any
 * thread-local of your own:
 * <pre>{@code
 * @IdempotentCommand
 * IdempotentResult<Payment> create(@IdempotencyKey String key, NewPayment payment);
 * }</pre>
 * idem stores only the value ({@code Payment}); the generated class builds a new wrapper on every call, from the
 * record in the table or in the local result cache. The delegate returns {@link #of(Object)}, which carries the
 * value only: asking it for the facts throws, since only the generated class knows them.
 *
 * <p>An HTTP API answers a replay with the stored response and {@code Idempotent-Replayed: true}; a message
 * consumer may skip downstream work it did the first time.
 *
 * @param <T> the stored result's type
 */
public final class IdempotentResult<T> {

  private final T value;
  private final boolean replayed;
  private final Instant firstExecutedAt;
  private final Instant expiresAt;
  private final ReplayValidity validity;

  private IdempotentResult(T value, boolean replayed, Instant firstExecutedAt, Instant expiresAt,
                           ReplayValidity validity) {
    this.value = value;
    this.replayed = replayed;
    this.firstExecutedAt = firstExecutedAt;
    this.expiresAt = expiresAt;
    this.validity = validity;
  }

  /**
   * What the delegate returns: the value alone. The generated class stores it and hands its caller a wrapper with
   * the facts.
   *
   * @param value the result, may be null
   * @param <T> the result type
   * @return a wrapper without facts
   */
  public static <T> IdempotentResult<T> of(T value) {
    return new IdempotentResult<>(value, false, null, null, ReplayValidity.NEVER);
  }

  /**
   * A wrapper with every fact, as the generated class builds it; also for test doubles of a service.
   *
   * @param value the result, may be null
   * @param replayed whether the value was replayed from a stored record
   * @param firstExecutedAt when the command first ran
   * @param expiresAt when the record expires (after it, the key runs anew)
   * @param <T> the result type
   * @return the wrapper
   */
  public static <T> IdempotentResult<T> of(T value, boolean replayed, Instant firstExecutedAt, Instant expiresAt) {
    return new IdempotentResult<>(value, replayed, Objects.requireNonNull(firstExecutedAt, "firstExecutedAt"),
        Objects.requireNonNull(expiresAt, "expiresAt"), ReplayValidity.NEVER);
  }

  /**
   * A wrapper with every fact and the validity of the replay, as the runtime builds it for generated code; also for
   * test doubles of a service whose replays should be answered from idem-http's replay cache.
   *
   * @param value the value
   * @param replayed whether the value was replayed
   * @param firstExecutedAt when the key's first call claimed it
   * @param expiresAt when the record expires
   * @param validity whether the record is still the one the runtime would replay ({@link ReplayValidity#NEVER}
   *     for none)
   * @param <T> the value's type
   * @return the result
   */
  public static <T> IdempotentResult<T> of(T value, boolean replayed, Instant firstExecutedAt, Instant expiresAt,
                                           ReplayValidity validity) {
    return new IdempotentResult<>(value, replayed, Objects.requireNonNull(firstExecutedAt, "firstExecutedAt"),
        Objects.requireNonNull(expiresAt, "expiresAt"), Objects.requireNonNull(validity, "validity"));
  }

  /** @return the command's result: the delegate's value on the first call, the stored one on a replay */
  public T value() {
    return value;
  }

  /**
   * @return true if this call did not run the command but replayed the outcome recorded by an earlier one
   * @throws IllegalStateException on a wrapper made by {@link #of(Object)}
   */
  public boolean replayed() {
    requireFacts();
    return replayed;
  }

  /**
   * @return when the command first ran: when its key was claimed by the call whose outcome is recorded
   * @throws IllegalStateException on a wrapper made by {@link #of(Object)}
   */
  public Instant firstExecutedAt() {
    requireFacts();
    return firstExecutedAt;
  }

  /**
   * @return until when the outcome is replayed; a call with the same key after it runs the command anew
   * @throws IllegalStateException on a wrapper made by {@link #of(Object)}
   */
  public Instant expiresAt() {
    requireFacts();
    return expiresAt;
  }

  /**
   * @return whether the record this replay came from is still the one the runtime would replay (see {@link
   *     ReplayValidity}); {@link ReplayValidity#NEVER} for first executions and for replays not served from the
   *     runtime's local cache. Not part of {@link #equals}
   */
  public ReplayValidity replayValidity() {
    return validity;
  }

  private void requireFacts() {
    if (firstExecutedAt == null) {
      throw new IllegalStateException("This IdempotentResult was made by IdempotentResult.of(value) and carries the"
          + " value only; the facts are on the wrapper the generated <Service>_Idempotent class returns");
    }
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof IdempotentResult<?> that && replayed == that.replayed
        && Objects.equals(value, that.value) && Objects.equals(firstExecutedAt, that.firstExecutedAt)
        && Objects.equals(expiresAt, that.expiresAt);
  }

  @Override
  public int hashCode() {
    return Objects.hash(value, replayed, firstExecutedAt, expiresAt);
  }

  @Override
  public String toString() {
    return firstExecutedAt == null
        ? "IdempotentResult[" + value + "]"
        : "IdempotentResult[" + value + (replayed ? ", replayed" : ", first execution") + ", firstExecutedAt "
            + firstExecutedAt + ", expiresAt " + expiresAt + "]";
  }
}
