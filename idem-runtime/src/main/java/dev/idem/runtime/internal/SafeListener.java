package dev.idem.runtime.internal;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyListener;
import java.lang.System.Logger.Level;

/** Calls the user's listener, so that a failing listener never changes a command's outcome. */
final class SafeListener {

  private static final System.Logger LOG = System.getLogger(IdemRuntime.class.getName());

  /**
   * One listener method. Passed as a method reference that captures nothing ({@code IdempotencyListener::claimed}),
   * so that notifying allocates nothing on the hot path: the arguments travel separately.
   */
  @FunctionalInterface
  private interface Event {
    void deliver(IdempotencyListener listener, String scope, String keyOrRule);
  }

  private final IdempotencyListener listener;

  SafeListener(IdempotencyListener listener) {
    this.listener = listener;
  }

  void commandFinished(String scope, Throwable failure, long elapsedNanos) {
    try {
      listener.commandFinished(scope, failure, elapsedNanos);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "IdempotencyListener.commandFinished failed; ignored", e);
    }
  }

  /**
   * A front tier's own command; tiers report to the listener they were given, this counterpart keeps every event
   * of the listener reachable safely from the runtime (SafeListenerTest).
   */
  void frontTierCommand(String operation, Throwable failure, long elapsedNanos) {
    try {
      listener.frontTierCommand(operation, failure, elapsedNanos);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "IdempotencyListener.frontTierCommand failed; ignored", e);
    }
  }

  void frontTierBloomSkipped(String scope, int keys) {
    try {
      listener.frontTierBloomSkipped(scope, keys);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "IdempotencyListener.frontTierBloomSkipped failed; ignored", e);
    }
  }

  void frontTierCircuit(boolean open) {
    try {
      listener.frontTierCircuit(open);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "IdempotencyListener.frontTierCircuit failed; ignored", e);
    }
  }

  void claimed(String scope, String key) {
    notify("claimed", IdempotencyListener::claimed, scope, key);
  }

  void frontTierHit(String scope, String key) {
    notify("frontTierHit", IdempotencyListener::frontTierHit, scope, key);
  }

  void frontTierMiss(String scope, String key) {
    notify("frontTierMiss", IdempotencyListener::frontTierMiss, scope, key);
  }

  void frontTierFallback(String scope, String key) {
    notify("frontTierFallback", IdempotencyListener::frontTierFallback, scope, key);
  }

  void completed(String scope, String key) {
    notify("completed", IdempotencyListener::completed, scope, key);
  }

  void replayed(String scope, String key) {
    notify("replayed", IdempotencyListener::replayed, scope, key);
  }

  void keyReused(String scope, String key) {
    notify("keyReused", IdempotencyListener::keyReused, scope, key);
  }

  void invalidKey(String scope, String rule) {
    notify("invalidKey", IdempotencyListener::invalidKey, scope, rule);
  }

  void inFlightRejected(String scope, String key) {
    notify("inFlightRejected", IdempotencyListener::inFlightRejected, scope, key);
  }

  void takenOver(String scope, String key) {
    notify("takenOver", IdempotencyListener::takenOver, scope, key);
  }

  void released(String scope, String key) {
    notify("released", IdempotencyListener::released, scope, key);
  }

  void leaseLost(String scope, String key) {
    notify("leaseLost", IdempotencyListener::leaseLost, scope, key);
  }

  void outcomeUnknown(String scope, String key) {
    notify("outcomeUnknown", IdempotencyListener::outcomeUnknown, scope, key);
  }

  void brokenRecord(String scope, String key) {
    notify("brokenRecord", IdempotencyListener::brokenRecord, scope, key);
  }

  void lockLost(String lockName, long fencingToken) {
    try {
      listener.lockLost(lockName, fencingToken);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "IdempotencyListener.lockLost failed; ignored", e);
    }
  }

  void purged(String tableName, long deleted) {
    try {
      listener.purged(tableName, deleted);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "IdempotencyListener.purged failed; ignored", e);
    }
  }

  void purgeFailed(String tableName, Throwable failure) {
    try {
      listener.purgeFailed(tableName, failure);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "IdempotencyListener.purgeFailed failed; ignored", e);
    }
  }

  void partitionCreated(String tableName, String partition) {
    try {
      listener.partitionCreated(tableName, partition);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "IdempotencyListener.partitionCreated failed; ignored", e);
    }
  }

  void partitionDropped(String tableName, String partition, long records) {
    try {
      listener.partitionDropped(tableName, partition, records);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "IdempotencyListener.partitionDropped failed; ignored", e);
    }
  }

  void partitionArchived(String tableName, String partition, long records) {
    try {
      listener.partitionArchived(tableName, partition, records);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "IdempotencyListener.partitionArchived failed; ignored", e);
    }
  }

  void partitionMaintenanceFailed(String tableName, Throwable failure) {
    try {
      listener.partitionMaintenanceFailed(tableName, failure);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "IdempotencyListener.partitionMaintenanceFailed failed; ignored", e);
    }
  }

  void outboxSent(String destination, long lagMillis) {
    try {
      listener.outboxSent(destination, lagMillis);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "IdempotencyListener.outboxSent failed; ignored", e);
    }
  }

  void outboxRetried(String destination, String reason) {
    notify("outboxRetried", IdempotencyListener::outboxRetried, destination, reason);
  }

  void outboxParked(String destination, String reason) {
    notify("outboxParked", IdempotencyListener::outboxParked, destination, reason);
  }

  void outboxClaimLost(int events) {
    try {
      listener.outboxClaimLost(events);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "IdempotencyListener.outboxClaimLost failed; ignored", e);
    }
  }

  void outboxRelayFailed(Throwable failure) {
    try {
      listener.outboxRelayFailed(failure);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "IdempotencyListener.outboxRelayFailed failed; ignored", e);
    }
  }

  private void notify(String event, Event call, String scope, String keyOrRule) {
    try {
      call.deliver(listener, scope, keyOrRule);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "IdempotencyListener." + event + " failed; ignored", e);
    }
  }
}
