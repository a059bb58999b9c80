package dev.idem.faults;

import dev.idem.runtime.IdemRuntime;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The delegate. Every execution writes one row to {@code business} through the runtime's connection (so the table
 * counts committed executions); a CLAIM execution then makes its external effect, counted per key in memory (so a
 * second execution shows even when its writes rolled back).
 */
final class RecordingLedger implements Ledger {

  /** What the body does between its business write and its return, e.g. stall; called with the key. */
  interface Pause {
    void during(String key) throws InterruptedException;
  }

  /** The body's own write failed (e.g. its connection was cut): the body fails, as application code would. */
  static final class BusinessWriteFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BusinessWriteFailed(String key, SQLException cause) {
      super("Writing the business row of " + key + " failed", cause);
    }
  }

  private final IdemRuntime runtime;
  private final AtomicInteger executions = new AtomicInteger();
  private final Map<String, AtomicInteger> externalEffects = new ConcurrentHashMap<>();
  volatile Pause pause = key -> { };

  RecordingLedger(IdemRuntime runtime) {
    this.runtime = runtime;
  }

  @Override
  public Entry post(String key, long amount) {
    Entry entry = new Entry(key, amount, executions.incrementAndGet());
    writeBusinessRow(entry);
    pauseDuring(key);
    return entry;
  }

  @Override
  public Entry charge(String key, long amount) {
    Entry entry = new Entry(key, amount, executions.incrementAndGet());
    writeBusinessRow(entry);
    pauseDuring(key);
    // The external effect (a gateway charge) comes last: it cannot be undone once made.
    externalEffects.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
    return entry;
  }

  @Override
  public Entry chargeWithinStorm(String key, long amount) {
    return charge(key, amount);
  }

  @Override
  public Entry chargeParked(String key, long amount) {
    return charge(key, amount);
  }

  @Override
  public Entry chargeBriefly(String key, long amount) {
    return charge(key, amount);
  }

  /** @return how often the external effect of {@code key} happened */
  int externalEffects(String key) {
    AtomicInteger count = externalEffects.get(key);
    return count == null ? 0 : count.get();
  }

  /** @return executions so far (committed or not) */
  int executions() {
    return executions.get();
  }

  void reset() {
    externalEffects.clear();
    pause = key -> { };
  }

  private void writeBusinessRow(Entry entry) {
    try (PreparedStatement insert = runtime.currentConnection()
        .prepareStatement("INSERT INTO business (idem_key, amount, execution) VALUES (?, ?, ?)")) {
      insert.setString(1, entry.key());
      insert.setLong(2, entry.amount());
      insert.setInt(3, entry.execution());
      insert.executeUpdate();
    } catch (SQLException e) {
      throw new BusinessWriteFailed(entry.key(), e);
    }
  }

  private void pauseDuring(String key) {
    try {
      pause.during(key);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted in the body of " + key, e);
    }
  }
}
