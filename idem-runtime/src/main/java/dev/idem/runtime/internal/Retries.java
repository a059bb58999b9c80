package dev.idem.runtime.internal;

import java.util.concurrent.ThreadLocalRandom;

/**
 * How often and how idem retries work that failed transiently (a deadlock, a lock timeout) before anything that
 * cannot be undone ran: the work of a new transaction, or one purge statement.
 */
final class Retries {

  static final int MAX_ATTEMPTS = 5;

  private Retries() {}

  /**
   * A random pause de-synchronizes competitors that just deadlocked each other; its bound grows fourfold with each
   * attempt (10, 40, 160, 640 ms) so that the attempts also outlast a burst of DDL: MariaDB's metadata locks report
   * a claim caught between two statements of a partition maintenance run as a deadlock, once per DDL statement of
   * the run, and a run that premakes and drops the days of the records and of the outbox takes a second or more
   * on a loaded machine (with bounds of 10 to 80 ms, a claim lost all five attempts to one such run). Two competitors
   * that deadlocked each other are apart after the first, short pause, so only a DDL burst reaches the long ones.
   */
  static void pauseBeforeRetry(int attemptNumber) {
    try {
      Thread.sleep(ThreadLocalRandom.current().nextInt(1, (10 << Math.min(2 * (attemptNumber - 1), 6)) + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
