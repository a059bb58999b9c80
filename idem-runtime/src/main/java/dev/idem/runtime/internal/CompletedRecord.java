package dev.idem.runtime.internal;

/**
 * A committed, completed record as it is stored: completed records never change until they expire, which is what
 * makes them safe to cache. Holds the serialized form, so that a caller mutating a replayed object cannot change
 * what the next caller gets.
 *
 * @param fingerprint the payload's fingerprint
 * @param result the result (or, with {@code errorType}, the failure's constructor arguments) as JSON; null for void
 * @param errorType the stored business failure's class name, or null for a result
 * @param resultShape the result shape the record was written with; null for records written before shapes were
 *     stored
 * @param expiresAt epoch millis after which the key may run anew
 * @param createdAt epoch millis when the key was claimed by the call whose outcome this is
 */
record CompletedRecord(String fingerprint, String result, String errorType, String resultShape, long expiresAt,
                       long createdAt) {

  boolean isExpiredAt(long now) {
    return expiresAt <= now;
  }
}
