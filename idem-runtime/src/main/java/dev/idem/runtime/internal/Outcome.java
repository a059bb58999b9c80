package dev.idem.runtime.internal;

import dev.idem.runtime.ReplayValidity;

/**
 * What an executor hands back for one call: the value and the facts of the record it came from, so that
 * {@link IdemEngine#executeWithOutcome} can tell its caller about a replay without any thread-local.
 *
 * @param value the body's result, or the replayed one
 * @param replayed whether the value was replayed from a stored record rather than produced by this call's body
 * @param createdAt epoch millis when the key was claimed by the call whose outcome this is
 * @param expiresAt epoch millis until which the outcome is replayed
 * @param validity whether the replayed record is still the one the runtime would replay; {@code NEVER} unless the
 *     replay came from the local cache
 * @param <T> the result type
 */
record Outcome<T>(T value, boolean replayed, long createdAt, long expiresAt, ReplayValidity validity) {

  Outcome(T value, boolean replayed, long createdAt, long expiresAt) {
    this(value, replayed, createdAt, expiresAt, ReplayValidity.NEVER);
  }

  /** The outcome of a call that replays {@code record}. */
  static <T> Outcome<T> replayOf(T value, CompletedRecord record) {
    return new Outcome<>(value, true, record.createdAt(), record.expiresAt());
  }

  /** The outcome of a call that replays {@code record} from the local cache, with its validity. */
  static <T> Outcome<T> replayOf(T value, CompletedRecord record, ReplayValidity validity) {
    return new Outcome<>(value, true, record.createdAt(), record.expiresAt(), validity);
  }

  /** The outcome of a call whose body produced {@code record}. */
  static <T> Outcome<T> executed(T value, CompletedRecord record) {
    return new Outcome<>(value, false, record.createdAt(), record.expiresAt());
  }
}
