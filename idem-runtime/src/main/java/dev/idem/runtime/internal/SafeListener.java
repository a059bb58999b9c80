package dev.idem.runtime.internal;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyListener;
import java.lang.System.Logger.Level;

/** Calls the user's listener, so that a failing listener never changes a command's outcome. */
final class SafeListener {

  private static final System.Logger LOG = System.getLogger(IdemRuntime.class.getName());

  private final IdempotencyListener listener;

  SafeListener(IdempotencyListener listener) {
    this.listener = listener;
  }

  void claimed(String scope, String key) {
    try {
      listener.claimed(scope, key);
    } catch (RuntimeException e) {
      failed("claimed", e);
    }
  }

  void completed(String scope, String key) {
    try {
      listener.completed(scope, key);
    } catch (RuntimeException e) {
      failed("completed", e);
    }
  }

  void replayed(String scope, String key) {
    try {
      listener.replayed(scope, key);
    } catch (RuntimeException e) {
      failed("replayed", e);
    }
  }

  void keyReused(String scope, String key) {
    try {
      listener.keyReused(scope, key);
    } catch (RuntimeException e) {
      failed("keyReused", e);
    }
  }

  void invalidKey(String scope, String rule) {
    try {
      listener.invalidKey(scope, rule);
    } catch (RuntimeException e) {
      failed("invalidKey", e);
    }
  }

  void inFlightRejected(String scope, String key) {
    try {
      listener.inFlightRejected(scope, key);
    } catch (RuntimeException e) {
      failed("inFlightRejected", e);
    }
  }

  void takenOver(String scope, String key) {
    try {
      listener.takenOver(scope, key);
    } catch (RuntimeException e) {
      failed("takenOver", e);
    }
  }

  void released(String scope, String key) {
    try {
      listener.released(scope, key);
    } catch (RuntimeException e) {
      failed("released", e);
    }
  }

  void leaseLost(String scope, String key) {
    try {
      listener.leaseLost(scope, key);
    } catch (RuntimeException e) {
      failed("leaseLost", e);
    }
  }

  private static void failed(String event, RuntimeException e) {
    LOG.log(Level.WARNING, "IdempotencyListener." + event + " failed; ignored", e);
  }
}
