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
   * A random pause de-synchronizes competitors that just deadlocked each other; it doubles with each attempt (up to
   * 10, 20, 40, 80 ms) so that the attempts also outlast a short burst of DDL: MariaDB's metadata locks report a
   * claim caught between two statements of a partition drop as a deadlock, once per DDL statement of the run.
   */
  static void pauseBeforeRetry(int attemptNumber) {
    try {
      Thread.sleep(ThreadLocalRandom.current().nextInt(1, (10 << Math.min(attemptNumber - 1, 6)) + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
