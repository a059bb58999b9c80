package dev.idem.runtime.internal;

import dev.idem.runtime.IdemRuntime;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The built-in purge of {@link IdemRuntime.Builder#purgeEvery}: one daemon thread per runtime runs
 * {@link ExpiredRecordPurger#purgeExpired} every interval (fixed delay, so that a slow run never overlaps the next).
 * A failed run is logged and reported to the listener, and the next run comes as usual: a scheduled task that threw
 * would never run again. Safe on every node of a cluster: see the dialects' purge statements, which let concurrent
 * purgers share the expired rows without waiting for each other (PostgreSQL) or wait in index order (MariaDB, H2).
 */
final class ScheduledPurge implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(IdemRuntime.class.getName());
  /** How long {@link #close()} waits for a run in progress (each batch is a short statement). */
  private static final long CLOSE_WAIT_MILLIS = 5_000;

  private final ExpiredRecordPurger purger;
  private final SafeListener listener;
  private final String tableName;
  private final int batchSize;
  private final ScheduledExecutorService scheduler;

  ScheduledPurge(ExpiredRecordPurger purger, SafeListener listener, String tableName, Duration interval,
      int batchSize) {
    this.purger = purger;
    this.listener = listener;
    this.tableName = tableName;
    this.batchSize = batchSize;
    this.scheduler = Executors.newSingleThreadScheduledExecutor(task -> {
      Thread thread = new Thread(task, "idem-purge-" + tableName);
      thread.setDaemon(true); // never keeps the JVM alive
      return thread;
    });
    long millis = interval.toMillis();
    scheduler.scheduleWithFixedDelay(this::runOnce, millis, millis, TimeUnit.MILLISECONDS);
  }

  private void runOnce() {
    try {
      long deleted = purger.purgeExpired(batchSize);
      listener.purged(tableName, deleted);
    } catch (Throwable failure) { // anything: an exception escaping a scheduled task cancels all later runs
      LOG.log(Level.WARNING, "The scheduled purge of " + tableName + " failed; it runs again after its interval",
          failure);
      listener.purgeFailed(tableName, failure);
    }
  }

  /** Stops the schedule; waits briefly for a run in progress, then interrupts it. */
  @Override
  public void close() {
    scheduler.shutdown();
    try {
      if (!scheduler.awaitTermination(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
        scheduler.shutdownNow();
      }
    } catch (InterruptedException e) {
      scheduler.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  boolean isStopped() {
    return scheduler.isTerminated();
  }
}
