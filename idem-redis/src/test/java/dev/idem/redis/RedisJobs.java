package dev.idem.redis;

import dev.idem.SingleFlight;

/** Single-flight jobs whose locks live in Redis ({@link RedisSingleFlightTest}). */
public interface RedisJobs {

  /** Fired by several threads of two instances at once: one runs at a time, across both. */
  @SingleFlight(name = "redis.report", lockAtMostFor = "PT5S")
  void report();

  /** Blocks until the test lets it go: its lease is lost meanwhile, and its late fenced write is rejected. */
  @SingleFlight(name = "redis.slow", lockAtMostFor = "PT1.5S")
  void slow();
}
