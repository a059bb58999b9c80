package dev.idem.runtime.internal;

import dev.idem.OnBusy;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyException;
import dev.idem.runtime.LockLease;
import dev.idem.runtime.LockProvider;
import dev.idem.runtime.SingleFlightLockLostException;
import java.lang.System.Logger.Level;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs single-flight bodies: takes the lease from the {@link LockProvider}, runs the body while a watchdog renews
 * the lease, releases it. The watchdog decides by two clocks that no wall-clock skew can move: the provider's (the
 * database's, in the statements) for the lease itself, and this JVM's monotonic {@link System#nanoTime()} for "the
 * lease may have ended": measured from the moment the last successful renewal (or the acquisition) was sent, which
 * is no later than the moment the store started the new lease, so the local deadline comes before the store's.
 *
 * <p>Renewal: every {@link #RENEW_FRACTION} of {@code lockAtMostFor}, on a pooled connection borrowed for the one
 * statement. Loss: a renewal the store refuses (the lease ended or another holder has it), or no successful renewal
 * by {@link #GIVE_UP_FRACTION} of {@code lockAtMostFor} after the last one was sent (the store unreachable). Then, at
 * once: the body's thread is interrupted, the listener's {@code lockLost} fires, and the call will throw
 * {@link SingleFlightLockLostException}. Since the store's lease ends {@code lockAtMostFor} after that send at the
 * earliest, the body is interrupted before any other instance can take the lock.
 *
 * <p>Stop: when the body ends, the watchdog stops under its monitor before the release is sent: no renewal starts
 * after that, no interrupt is raised after that, and a renewal still in flight cannot extend the released lease (the
 * release clears the owner token that renewals are fenced by).
 */
final class SingleFlightRunner implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(IdemRuntime.class.getName());

  /** Renew when this fraction of the lease has passed since the last attempt. */
  static final double RENEW_FRACTION = 1.0 / 3;
  /** Give up (interrupt, lost) when this fraction has passed since the last successful renewal was sent. */
  static final double GIVE_UP_FRACTION = 0.8;
  private static final long MIN_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
  private static final long MAX_TICK_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final long MIN_POLL_MILLIS = 20;
  private static final long MAX_POLL_MILLIS = 500;

  private final LockProvider provider;
  private final SafeListener listener;
  /** The lease of the single-flight body running on this thread (innermost), for {@link #fencingToken()}. */
  private final ThreadLocal<LockLease> current = new ThreadLocal<>();
  private final Object executorsLock = new Object();
  private ScheduledExecutorService timer;
  private ExecutorService renewals;
  private boolean closed;

  SingleFlightRunner(LockProvider provider, SafeListener listener) {
    this.provider = provider;
    this.listener = listener;
  }

  LockProvider provider() {
    return provider;
  }

  /** The fencing token of the single-flight body running on this thread, if any. */
  OptionalLong fencingToken() {
    LockLease lease = current.get();
    return lease == null ? OptionalLong.empty() : OptionalLong.of(lease.fencingToken());
  }

  /**
   * @param notRun what the call returns when it did not get the lock
   * @return the body's result, or {@code notRun}
   */
  <T> T run(SingleFlightSpec spec, T notRun, CommandBody<T> body) {
    long sentNanos = System.nanoTime();
    Optional<LockLease> acquired = provider.tryAcquire(spec.name(), spec.lockAtMostFor());
    if (acquired.isEmpty() && spec.onBusy() == OnBusy.WAIT) {
      long deadline = sentNanos + spec.waitTimeout().toNanos();
      long poll = MIN_POLL_MILLIS;
      while (acquired.isEmpty() && System.nanoTime() - deadline < 0) {
        try {
          Thread.sleep(ThreadLocalRandom.current().nextLong(poll / 2, poll + 1));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return notRun;
        }
        poll = Math.min(MAX_POLL_MILLIS, poll * 2);
        sentNanos = System.nanoTime();
        acquired = provider.tryAcquire(spec.name(), spec.lockAtMostFor());
      }
    }
    if (acquired.isEmpty()) {
      return notRun;
    }
    LockLease lease = acquired.get();
    Watchdog watchdog = new Watchdog(spec, lease, Thread.currentThread(), sentNanos);
    watchdog.start();
    LockLease outer = current.get();
    current.set(lease);
    T result = null;
    Throwable failure = null;
    try {
      result = body.run();
    } catch (Throwable t) {
      failure = t;
    } finally {
      if (outer == null) {
        current.remove();
      } else {
        current.set(outer);
      }
    }
    String lostReason = watchdog.stop();
    if (lostReason != null) {
      Thread.interrupted(); // ours: the caller's thread goes on uninterrupted, told by the exception instead
    }
    boolean released;
    try {
      released = provider.release(lease, spec.lockAtLeastFor());
    } catch (IdempotencyException e) {
      // The lease ends by itself at its end; the body's outcome stands.
      LOG.log(Level.WARNING, "Releasing the single-flight lock '" + spec.name() + "' failed; it stays held until"
          + " its lease ends", e);
      released = true;
    }
    if (!released && lostReason == null) {
      lostReason = "the release found the lock held by another instance";
      listener.lockLost(spec.name(), lease.fencingToken());
    }
    if (lostReason != null) {
      throw new SingleFlightLockLostException(spec.name(), lease.fencingToken(), lostReason, failure);
    }
    if (failure != null) {
      throw Sneaky.rethrow(failure);
    }
    return result;
  }

  @Override
  public void close() {
    synchronized (executorsLock) {
      closed = true;
      if (timer != null) {
        timer.shutdownNow();
        renewals.shutdownNow();
      }
    }
  }

  private ScheduledExecutorService timer() {
    synchronized (executorsLock) {
      if (closed) {
        throw new IllegalStateException("The runtime is closed: single-flight calls need its watchdog");
      }
      if (timer == null) {
        ScheduledThreadPoolExecutor ticks = new ScheduledThreadPoolExecutor(1, daemon("idem-lock-watchdog"));
        ticks.setRemoveOnCancelPolicy(true);
        timer = ticks;
        renewals = Executors.newCachedThreadPool(daemon("idem-lock-renewal"));
      }
      return timer;
    }
  }

  private ExecutorService renewals() {
    synchronized (executorsLock) {
      return renewals;
    }
  }

  private static ThreadFactory daemon(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /** The renewals of one held lease; every decision under its monitor. */
  private final class Watchdog implements Runnable {
    private final SingleFlightSpec spec;
    private final LockLease lease;
    private final Thread body;
    private final long renewEveryNanos;
    private final long giveUpNanos;
    /** When the last successful renewal (or the acquisition) was sent. */
    private long renewedSentNanos;
    private long lastAttemptNanos;
    private boolean renewing;
    private boolean stopped;
    private String lostReason;
    private ScheduledFuture<?> ticks;

    Watchdog(SingleFlightSpec spec, LockLease lease, Thread body, long acquiredSentNanos) {
      this.spec = spec;
      this.lease = lease;
      this.body = body;
      long leaseNanos = spec.lockAtMostFor().toNanos();
      this.renewEveryNanos = (long) (leaseNanos * RENEW_FRACTION);
      this.giveUpNanos = (long) (leaseNanos * GIVE_UP_FRACTION);
      this.renewedSentNanos = acquiredSentNanos;
      this.lastAttemptNanos = acquiredSentNanos;
    }

    synchronized void start() {
      long tick = Math.max(MIN_TICK_NANOS, Math.min(MAX_TICK_NANOS, spec.lockAtMostFor().toNanos() / 50));
      ticks = timer().scheduleAtFixedRate(this, tick, tick, TimeUnit.NANOSECONDS);
    }

    /** Stops for good; returns why the lease was lost, or null. */
    synchronized String stop() {
      stopped = true;
      ticks.cancel(false);
      return lostReason;
    }

    @Override
    public synchronized void run() {
      if (stopped) {
        return;
      }
      long now = System.nanoTime();
      if (now - renewedSentNanos >= giveUpNanos) {
        lose("no renewal succeeded within " + Math.round(GIVE_UP_FRACTION * 100) + "% of lockAtMostFor ("
            + spec.lockAtMostFor() + "), so the lease may end before the next one could");
        return;
      }
      if (!renewing && now - lastAttemptNanos >= renewEveryNanos) {
        renewing = true;
        lastAttemptNanos = now;
        try {
          renewals().execute(this::renew);
        } catch (RuntimeException e) {
          renewing = false; // closed: the deadline decides
        }
      }
    }

    private void renew() {
      long sent = System.nanoTime();
      Boolean renewed = null;
      try {
        renewed = provider.renew(lease, spec.lockAtMostFor());
      } catch (RuntimeException e) {
        LOG.log(Level.DEBUG, "Renewing the single-flight lock '" + spec.name() + "' failed; retrying until its"
            + " deadline", e);
      }
      synchronized (this) {
        renewing = false;
        if (renewed == null) {
          lastAttemptNanos -= renewEveryNanos * 3 / 4; // a failed attempt is retried sooner than a successful one
          return;
        }
        if (stopped) {
          return;
        }
        if (renewed) {
          renewedSentNanos = Math.max(renewedSentNanos, sent);
        } else {
          lose("a renewal found the lease ended or held by another instance");
        }
      }
    }

    /** Under the monitor, not stopped. */
    private void lose(String reason) {
      lostReason = reason;
      stopped = true;
      ticks.cancel(false);
      body.interrupt();
      listener.lockLost(spec.name(), lease.fencingToken());
    }
  }
}
