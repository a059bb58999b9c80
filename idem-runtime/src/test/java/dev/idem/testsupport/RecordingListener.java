package dev.idem.testsupport;

import dev.idem.runtime.IdempotencyListener;
import java.util.List;

/**
 * Records every listener event as a line such as {@code "replayed Payments.pay req-1"} (or {@code "replayed req-1"}
 * without the scope), so that tests can assert on the sequence of decisions the runtime made.
 */
public final class RecordingListener implements IdempotencyListener {

  private final List<String> events;
  private final boolean withScope;

  private RecordingListener(List<String> events, boolean withScope) {
    this.events = events;
    this.withScope = withScope;
  }

  /** Records {@code "<event> <scope> <key>"} into {@code events}, which must be thread-safe. */
  public static RecordingListener withScope(List<String> events) {
    return new RecordingListener(events, true);
  }

  /** Records {@code "<event> <key>"} into {@code events}, which must be thread-safe. */
  public static RecordingListener keysOnly(List<String> events) {
    return new RecordingListener(events, false);
  }

  private void record(String event, String scope, String subject) {
    events.add(withScope ? event + " " + scope + " " + subject : event + " " + subject);
  }

  @Override public void claimed(String scope, String key) { record("claimed", scope, key); }

  @Override public void completed(String scope, String key) { record("completed", scope, key); }

  @Override public void replayed(String scope, String key) { record("replayed", scope, key); }

  @Override public void keyReused(String scope, String key) { record("keyReused", scope, key); }

  @Override public void invalidKey(String scope, String rule) { record("invalidKey", scope, rule); }

  @Override public void inFlightRejected(String scope, String key) { record("inFlightRejected", scope, key); }

  @Override public void takenOver(String scope, String key) { record("takenOver", scope, key); }

  @Override public void released(String scope, String key) { record("released", scope, key); }

  @Override public void leaseLost(String scope, String key) { record("leaseLost", scope, key); }
}
