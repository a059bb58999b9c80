package dev.idem.runtime.internal;

import dev.idem.runtime.IdemRuntime;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Keeps trying, off the caller's thread, to record {@code OUTCOME_UNKNOWN} for a CLAIM body that returned while the
 * database could not be written at all (neither on the claim's connection nor on a fresh one). Until the mark
 * lands, the record is an in-progress claim: once its lease ended, a retry would take it over and run the body a
 * second time. So the mark is retried every {@link #RETRY_MILLIS} until the lease ends (a fenced statement: it
 * changes nothing once the claim is no longer this caller's); only a database unreachable for the whole lease, or
 * this process dying meanwhile, leaves the claim to be taken over, as after a crash. One daemon thread, started on
 * the first such fault.
 */
final class UnrecordedOutcomes {

  private static final System.Logger LOG = System.getLogger(IdemRuntime.class.getName());
  static final long RETRY_MILLIS = 500;

  /** Records the outcome on a connection: true once done (or no longer this caller's claim). */
  @FunctionalInterface
  interface Mark {
    boolean on(Connection connection) throws SQLException;
  }

  private final TransactionManager transactions;
  private volatile ScheduledExecutorService retrier;

  UnrecordedOutcomes(TransactionManager transactions) {
    this.transactions = transactions;
  }

  void retryUntilLeaseEnds(String scope, String key, long leaseMillis, Mark mark) {
    long deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
    retrier().schedule(() -> attempt(scope, key, deadlineNanos, mark), RETRY_MILLIS, TimeUnit.MILLISECONDS);
  }

  private void attempt(String scope, String key, long deadlineNanos, Mark mark) {
    try (Connection connection = transactions.newConnection()) {
      if (!connection.getAutoCommit()) {
        connection.setAutoCommit(true);
      }
      if (mark.on(connection)) {
        LOG.log(Level.WARNING, "Recorded OUTCOME_UNKNOWN for " + scope + " key '" + key + "' after retrying");
      }
      return;
    } catch (SQLException | RuntimeException e) {
      if (System.nanoTime() - deadlineNanos >= 0) {
        LOG.log(Level.ERROR, "Could not record OUTCOME_UNKNOWN for " + scope + " key '" + key + "' before its lease"
            + " ended: a retry may take the claim over and run the command again", e);
        return;
      }
    }
    retrier().schedule(() -> attempt(scope, key, deadlineNanos, mark), RETRY_MILLIS, TimeUnit.MILLISECONDS);
  }

  private ScheduledExecutorService retrier() {
    ScheduledExecutorService current = retrier;
    if (current == null) {
      synchronized (this) {
        current = retrier;
        if (current == null) {
          current = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "idem-unrecorded-outcomes");
            thread.setDaemon(true);
            return thread;
          });
          retrier = current;
        }
      }
    }
    return current;
  }
}
