package dev.idem.runtime.internal;

import java.util.concurrent.ThreadLocalRandom;

/**
 * How often and how idem retries work that failed transiently (a deadlock, a lock timeout) before anything that
 * cannot be undone ran: the work of a new transaction, or one purge statement.
 */
final class Retries {

  static final int MAX_ATTEMPTS = 5;

  private Retries() {}

  /** A short random pause de-synchronizes competitors that just deadlocked each other. */
  static void pauseBeforeRetry(int attemptNumber) {
    try {
      Thread.sleep(ThreadLocalRandom.current().nextInt(1, 5 * attemptNumber + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
