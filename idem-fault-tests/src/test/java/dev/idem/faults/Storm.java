package dev.idem.faults;

import dev.idem.faults.Ledger.Entry;
import dev.idem.faults.RecordingLedger.BusinessWriteFailed;
import dev.idem.runtime.IdempotencyCommitUnknownException;
import dev.idem.runtime.IdempotencyInProgressException;
import dev.idem.runtime.IdempotencyLeaseLostException;
import dev.idem.runtime.IdempotencyOutcomeUnknownException;
import dev.idem.runtime.IdempotencyStoreException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;

/**
 * Many threads send every key several times (duplicates race each other) while faults happen; each send is retried
 * until it succeeds, up to a bound, as a client would. It records what every call returned and every failure it
 * did not expect; the test then compares with the tables.
 */
final class Storm {

  /** What the storm sends: a command of the ledger for a key and an amount. */
  interface Command extends BiFunction<String, Long, Entry> {}

  private final int threads;
  private final int keys;
  private final int copies;
  private final int maxAttemptsPerSend;
  private final String keyPrefix;
  final AtomicLong attempts = new AtomicLong();
  final AtomicLong expectedFailures = new AtomicLong();
  final AtomicInteger gaveUp = new AtomicInteger();
  /** key -> the execution numbers the calls for it returned (one, if every call got the same outcome). */
  final Map<String, Set<Integer>> returnedExecutions = new ConcurrentHashMap<>();
  /**
   * Keys a call answered with {@link IdempotencyOutcomeUnknownException}: a client stops sending those (an operator
   * settles them), every send of the key.
   */
  final Set<String> outcomeUnknown = ConcurrentHashMap.newKeySet();
  /** Of those, the keys whose unknown outcome could not even be recorded (the claim holds until its lease ends). */
  final Set<String> outcomeUnrecorded = ConcurrentHashMap.newKeySet();
  /**
   * Keys a call was told {@link IdempotencyCommitUnknownException}: committed or not, a retry settles it; in CLAIM
   * mode, if it did not commit (and nothing could be recorded), the retry after the lease runs the body again.
   */
  final Set<String> commitUnknown = ConcurrentHashMap.newKeySet();
  /** Keys a call was told had lost its lease to another caller (an owner stalled past it; both may have run). */
  final Set<String> leaseLost = ConcurrentHashMap.newKeySet();
  final Queue<Throwable> unexpected = new ConcurrentLinkedQueue<>();

  Storm(String keyPrefix, int threads, int keys, int copies, int maxAttemptsPerSend) {
    this.keyPrefix = keyPrefix;
    this.threads = threads;
    this.keys = keys;
    this.copies = copies;
    this.maxAttemptsPerSend = maxAttemptsPerSend;
  }

  String key(int i) {
    return keyPrefix + i;
  }

  List<String> allKeys() {
    List<String> all = new ArrayList<>();
    for (int i = 0; i < keys; i++) {
      all.add(key(i));
    }
    return all;
  }

  int calls() {
    return keys * copies;
  }

  /**
   * Sends every key {@code copies} times in a seeded random order from {@code threads} threads, and waits.
   *
   * @param duringStorm runs on its own thread while the storm runs (e.g. cut connections, kill the server)
   */
  void run(Command command, long seed, long timeoutSeconds, Runnable duringStorm) throws Exception {
    List<String> sends = new ArrayList<>();
    for (int copy = 0; copy < copies; copy++) {
      sends.addAll(allKeys());
    }
    Collections.shuffle(sends, new Random(seed));
    ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
    try {
      Future<?> disturber = pool.submit(duringStorm);
      List<Future<?>> futures = new ArrayList<>();
      for (String key : sends) {
        futures.add(pool.submit(() -> send(command, key)));
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
      for (Future<?> future : futures) {
        future.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      }
      disturber.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } finally {
      pool.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  private void send(Command command, String key) {
    long amount = amountOf(key);
    for (int attempt = 1; attempt <= maxAttemptsPerSend; attempt++) {
      if (outcomeUnknown.contains(key)) {
        return;
      }
      attempts.incrementAndGet();
      try {
        Entry entry = command.apply(key, amount);
        if (!entry.key().equals(key) || entry.amount() != amount) {
          unexpected.add(new AssertionError("Wrong result for " + key + ": " + entry));
        }
        returnedExecutions.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(entry.execution());
        return;
      } catch (IdempotencyInProgressException e) {
        // A duplicate is running, or a claim whose owner died holds the key until its lease ends.
        expectedFailures.incrementAndGet();
      } catch (IdempotencyOutcomeUnknownException e) {
        expectedFailures.incrementAndGet();
        if (!e.recorded()) {
          outcomeUnrecorded.add(key);
        }
        outcomeUnknown.add(key);
        return;
      } catch (IdempotencyLeaseLostException e) {
        expectedFailures.incrementAndGet();
        leaseLost.add(key); // the new owner's outcome stands; a retry replays or waits for it
      } catch (IdempotencyCommitUnknownException e) {
        expectedFailures.incrementAndGet();
        commitUnknown.add(key); // its message: a retry replays if it committed, runs the command if not
      } catch (IdempotencyStoreException | BusinessWriteFailed e) {
        expectedFailures.incrementAndGet(); // a fault: retry
      } catch (Throwable t) {
        unexpected.add(t);
        return;
      }
      pause(ThreadLocalRandom.current().nextLong(2, 2 + Math.min(50, 2L * attempt)));
    }
    gaveUp.incrementAndGet();
  }

  /** @return the amount every send of {@code key} carries (equal payloads: duplicates, not key reuse) */
  static long amountOf(String key) {
    return key.hashCode() & 0xffff;
  }

  static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** @return keys whose calls returned more than one execution (each must be replayed, not rerun) */
  long keysWithSeveralReturnedExecutions() {
    return returnedExecutions.values().stream().filter(executions -> executions.size() > 1).count();
  }
}
