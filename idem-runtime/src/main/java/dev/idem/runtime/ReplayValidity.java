package dev.idem.runtime;

/**
 * Whether the record a replay came from is still the one the runtime would replay, without running the command
 * again: what lets a layer above the runtime (idem-http's replay cache) answer a later retry with the response it
 * rendered from that replay. Current only while the runtime's local cache of completed records still holds that very
 * record, unexpired by the runtime's clock (the same test a cached replay passes); an operator's release, resolve or
 * forget through this runtime, an eviction from the cache or the record's expiry ends it for good.
 *
 * <p>It does not compare payloads: the caller must know that a retry carries the same payload as the replay (for
 * instance, the same request body bytes).
 */
@FunctionalInterface
public interface ReplayValidity {

  /** Never current: first executions, and replays that did not come from the runtime's local cache. */
  ReplayValidity NEVER = () -> false;

  /**
   * Checks the record again; when it is still current this counts as one more replay of it (the runtime's
   * listeners are told, as for a replay by the command).
   *
   * @return true if the record is still cached, completed and unexpired
   */
  boolean replayAgain();
}
