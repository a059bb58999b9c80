package dev.idem.runtime.internal;

import dev.idem.runtime.FrontTier;
import dev.idem.runtime.IdemRuntime;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The runtime's side of the {@link FrontTier} seam: the engine asks it before a command reaches an executor,
 * {@link CompletedRecordCache#put} publishes through it once a completed record is committed, and
 * {@link RecordOperations} forgets through it. A tier that throws is treated as one that could not answer, so that a
 * broken tier never fails a call the database can serve.
 *
 * <p>It also remembers, per thread, the in-flight mark the current call holds, so that the engine removes the mark
 * only when no published outcome replaced it (one round trip saved on every first call that commits in idem's own
 * transaction).
 */
final class FrontTierGate {

  private static final System.Logger LOG = System.getLogger(IdemRuntime.class.getName());

  /** The mark the call on this thread holds; nested commands (a body calling another) stack them. */
  static final class Mark {
    final String scope;
    final String key;
    final String token;
    final Mark outer;
    boolean replaced;

    private Mark(String scope, String key, String token, Mark outer) {
      this.scope = scope;
      this.key = key;
      this.token = token;
      this.outer = outer;
    }
  }

  private final FrontTier tier;
  private final DatabaseClock clock;
  private final Duration transactionalInFlight;
  private final ThreadLocal<Mark> marks = new ThreadLocal<>();

  FrontTierGate(FrontTier tier, DatabaseClock clock, Duration transactionalInFlight) {
    this.tier = tier;
    this.clock = clock;
    this.transactionalInFlight = transactionalInFlight;
  }

  boolean isEnabled() {
    return tier != FrontTier.NONE;
  }

  /** How long a TRANSACTIONAL command's mark holds if its owner never replaces or removes it (a crash). */
  Duration transactionalInFlight() {
    return transactionalInFlight;
  }

  FrontTier.Lookup lookupOrMark(String scope, String key, String token, Duration inFlightFor) {
    try {
      FrontTier.Lookup lookup = tier.lookupOrMark(scope, key, token, inFlightFor);
      return lookup == null ? FrontTier.Lookup.unavailable() : lookup;
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "FrontTier.lookupOrMark failed; the database decides", e);
      return FrontTier.Lookup.unavailable();
    }
  }

  /** Notes that this thread's call holds the key's mark; pair with {@link #release}. */
  Mark hold(String scope, String key, String token) {
    Mark mark = new Mark(scope, key, token, marks.get());
    marks.set(mark);
    return mark;
  }

  /** Ends the call's hold; removes its mark from the tier unless a published outcome replaced it. */
  void release(Mark mark) {
    if (mark.outer == null) {
      marks.remove();
    } else {
      marks.set(mark.outer);
    }
    if (!mark.replaced) {
      try {
        tier.unmark(mark.scope, mark.key, mark.token);
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "FrontTier.unmark failed; the mark expires by itself", e);
      }
    }
  }

  /** Call only once the record is committed. */
  void publish(String scope, String key, CompletedRecord record) {
    if (!isEnabled()) {
      return;
    }
    long timeToLive = record.expiresAt() - clock.millis();
    if (timeToLive <= 0) {
      return; // expired already: the key may run anew, the tier must not replay it
    }
    boolean stored;
    try {
      stored = tier.publish(scope, key, new FrontTier.Completed(record.fingerprint(), record.result(), record.errorType(),
          record.resultShape(), record.expiresAt(), record.createdAt()), Duration.ofMillis(timeToLive));
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "FrontTier.publish failed; retries ask the database", e);
      return;
    }
    if (!stored) {
      return; // the call's mark, if any, is still there: release removes it
    }
    for (Mark mark = marks.get(); mark != null; mark = mark.outer) {
      if (mark.scope.equals(scope) && mark.key.equals(key)) {
        mark.replaced = true;
        break;
      }
    }
  }

  /** The outcomes the tier holds for a batch's keys (null: ask the database); never throws. */
  List<FrontTier.Completed> lookupCompleted(String scope, List<String> keys) {
    try {
      List<FrontTier.Completed> found = tier.lookupCompleted(scope, keys);
      if (found != null && found.size() == keys.size()) {
        return found;
      }
      LOG.log(Level.WARNING, "FrontTier.lookupCompleted answered " + (found == null ? "null" : found.size()
          + " outcomes for " + keys.size() + " keys") + "; the database decides");
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "FrontTier.lookupCompleted failed; the database decides", e);
    }
    return Collections.nCopies(keys.size(), null);
  }

  /** Call only once the batch's claims are committed. */
  void publishAll(String scope, Map<String, FrontTier.Completed> outcomes, long expiresAt) {
    long timeToLive = expiresAt - clock.millis();
    if (outcomes.isEmpty() || timeToLive <= 0) {
      return;
    }
    try {
      tier.publishAll(scope, outcomes, Duration.ofMillis(timeToLive));
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "FrontTier.publishAll failed; redeliveries ask the database", e);
    }
  }

  void forget(String scope, String key) {
    if (!isEnabled()) {
      return;
    }
    // Not swallowed: an operator who released or resolved a record must learn that the tier may still replay it.
    tier.forget(scope, key);
  }

  /** A tier's completed outcome as the runtime's record type. */
  static CompletedRecord recordOf(FrontTier.Completed outcome) {
    return new CompletedRecord(outcome.fingerprint(), outcome.result(), outcome.errorType(), outcome.resultShape(),
        outcome.expiresAt(), outcome.createdAt());
  }
}
