package dev.idem.runtime.internal;

import dev.idem.InFlight;
import dev.idem.runtime.FrontTier;
import dev.idem.runtime.IdempotencyException;
import dev.idem.runtime.IdempotencyInProgressException;
import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.runtime.IdempotencyLeaseLostException;
import dev.idem.runtime.IdempotencyRecordStoreException;
import dev.idem.runtime.RecordStore;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code store = Store.REDIS} commands on a {@link RecordStore} instead of the database: claim (atomic, with an
 * owner token and the lease as the claim's expiry on the store's clock), body outside any database transaction,
 * then completion or release by compare-and-set on the token. The engine hands it every such command; the
 * database executors never see them.
 *
 * <p>Never a silent second run: a store that cannot be asked before the body means the body does not run (the
 * caller gets {@link IdempotencyRecordStoreException}); one that fails after the body means the outcome is not
 * recorded, and the caller is told that the claim holds until its lease ends, after which a retry runs again.
 */
final class RecordStoreExecutor {

  private static final long MAX_POLL_MILLIS = 50;

  private final RecordStore store;
  private final ResultCodec results;
  private final DatabaseClock time;
  private final SafeListener listener;

  RecordStoreExecutor(RecordStore store, ResultCodec results, DatabaseClock time, SafeListener listener) {
    this.store = store;
    this.results = results;
    this.time = time;
    this.listener = listener;
  }

  <T> Outcome<T> execute(CommandSpec<T> spec, String key, String fingerprint, CommandBody<T> body) {
    String scope = spec.scope();
    String token = UUID.randomUUID().toString();
    long waitUntilNanos = System.nanoTime() + spec.waitTimeout().toNanos();
    long pauseMillis = 1;
    while (true) {
      RecordStore.Claim claim;
      try {
        claim = store.claim(scope, key, token, fingerprint, spec.lease());
      } catch (RuntimeException e) {
        throw new IdempotencyRecordStoreException("Claiming " + scope + " key '" + key + "' in its record store ("
            + store + ") failed (step: claim; the body did not run; a retry claims again, or, if this claim did"
            + " reach the store, meets it in flight until its lease of " + spec.lease() + " ends): " + e, e);
      }
      switch (claim.found()) {
        case COMPLETED -> {
          CompletedRecord record = FrontTierGate.recordOf(claim.outcome());
          if (!record.fingerprint().equals(fingerprint)) {
            listener.keyReused(scope, key);
            throw new IdempotencyKeyReusedException(scope, key);
          }
          @SuppressWarnings("unchecked")
          T result = (T) results.replay(spec, key, record); // checks the shape; a broken record throws
          listener.replayed(scope, key);
          return Outcome.replayOf(result, record);
        }
        case CLAIMED -> {
          listener.claimed(scope, key);
          return run(spec, key, fingerprint, token, body);
        }
        case IN_FLIGHT -> {
          if (!claim.fingerprint().equals(fingerprint)) {
            listener.keyReused(scope, key);
            throw new IdempotencyKeyReusedException(scope, key);
          }
          long remainingNanos = waitUntilNanos - System.nanoTime();
          if (spec.onInFlight() == InFlight.FAIL || remainingNanos <= 0) {
            listener.inFlightRejected(scope, key);
            throw new IdempotencyInProgressException(scope, key, Instant.now().plus(claim.remaining()));
          }
          pause(Math.min(pauseMillis, Math.max(1, TimeUnit.NANOSECONDS.toMillis(remainingNanos))));
          pauseMillis = Math.min(pauseMillis * 2, MAX_POLL_MILLIS);
        }
        default -> throw new IllegalStateException("unknown answer " + claim.found());
      }
    }
  }

  private <T> Outcome<T> run(CommandSpec<T> spec, String key, String fingerprint, String token,
                             CommandBody<T> body) {
    String scope = spec.scope();
    long createdAt = time.millis();
    T value;
    try {
      value = body.run();
    } catch (Throwable failure) {
      throw failed(spec, key, fingerprint, token, createdAt, failure);
    }
    // The body returned: its effects happened. From here on the claim is never released.
    String json;
    try {
      json = spec.resultType().isVoid() ? null : results.write(spec, key, value);
    } catch (RuntimeException notStorable) {
      listener.outcomeUnknown(scope, key);
      throw notRecorded(spec, key, "its result could not be stored (" + notStorable.getMessage() + ")",
          notStorable);
    }
    long expiresAt = time.millis() + spec.retentionMillis();
    CompletedRecord record = new CompletedRecord(fingerprint, json, null, spec.resultShape(), expiresAt, createdAt);
    complete(spec, key, token, record, null);
    listener.completed(scope, key);
    return Outcome.executed(value, record);
  }

  /** A business failure is stored like a result; anything else releases the claim. Rethrows the body's failure. */
  private RuntimeException failed(CommandSpec<?> spec, String key, String fingerprint, String token, long createdAt,
                                  Throwable failure) {
    String scope = spec.scope();
    ReplayableFailure<?> replayable = spec.replayableFor(failure);
    String arguments = null;
    if (replayable != null) {
      try {
        arguments = results.writeArguments(spec, key, replayable, replayable.capture(failure));
      } catch (RuntimeException e) {
        failure.addSuppressed(e); // not storable: released instead, so that a retry runs again
      }
    }
    try {
      if (arguments == null) {
        if (store.release(scope, key, token)) {
          listener.released(scope, key);
        }
      } else {
        long expiresAt = time.millis() + spec.retentionMillis();
        complete(spec, key, token,
            new CompletedRecord(fingerprint, arguments, replayable.storedName(), null, expiresAt, createdAt), failure);
        listener.completed(scope, key);
      }
    } catch (IdempotencyLeaseLostException lost) {
      return lost;
    } catch (IdempotencyRecordStoreException notRecorded) {
      failure.addSuppressed(notRecorded);
    } catch (RuntimeException e) {
      failure.addSuppressed(new IdempotencyRecordStoreException("Releasing the claim of " + scope + " key '" + key
          + "' in its record store failed; the claim holds until its lease of " + spec.lease() + " ends, then a"
          + " retry runs the command again", e));
    }
    return Sneaky.rethrow(failure);
  }

  /** Compare-and-set of the outcome on this caller's token; throws if it could not be recorded. */
  private void complete(CommandSpec<?> spec, String key, String token, CompletedRecord record, Throwable discarded) {
    String scope = spec.scope();
    boolean stored;
    try {
      stored = store.complete(scope, key, token, new FrontTier.Completed(record.fingerprint(), record.result(),
          record.errorType(), record.resultShape(), record.expiresAt(), record.createdAt()),
          Duration.ofMillis(spec.retentionMillis()));
    } catch (RuntimeException e) {
      listener.outcomeUnknown(scope, key);
      throw notRecorded(spec, key, "recording it in the record store (" + store + ") failed or timed out, so"
          + " whether it was stored is unknown (" + e + ")", e);
    }
    if (!stored) {
      // The claim expired (the body outlived its lease, or the store lost it) and another caller may hold the key.
      listener.leaseLost(scope, key);
      throw discarded == null ? new IdempotencyLeaseLostException(scope, key)
          : new IdempotencyLeaseLostException(scope, key, discarded);
    }
  }

  private static IdempotencyException notRecorded(CommandSpec<?> spec, String key, String problem,
                                                  Throwable cause) {
    return new IdempotencyRecordStoreException("The outcome of " + spec.scope() + " key '" + key + "' may not be"
        + " recorded: its body ran (its effects happened), but " + problem + ". If it was not, its claim holds until"
        + " its lease of " + spec.lease() + " ends; until then retries are told it is in progress, after that a"
        + " retry runs the command again", cause);
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IdempotencyException("Interrupted while waiting for another caller's outcome", e);
    }
  }
}
