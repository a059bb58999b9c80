package dev.idem.examples.metrics;

import dev.idem.runtime.IdempotencyListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts idem's decisions in Micrometer: one counter {@code idem.commands} tagged with the command's {@code scope}
 * and the {@code decision} (claimed, completed, replayed, key_reused, in_flight_rejected, taken_over, released,
 * lease_lost, invalid_key). The idempotency key is deliberately not a tag: every request has its own, and a tag per
 * key would grow the registry without bound.
 *
 * <pre>{@code
 * IdemRuntime runtime = IdemRuntime.builder()
 *     .dataSource(dataSource)
 *     .listener(new MicrometerIdempotencyListener(meterRegistry))
 *     .build();
 * }</pre>
 */
public final class MicrometerIdempotencyListener implements IdempotencyListener {

  /** The counter's name. */
  public static final String METER = "idem.commands";

  private record MeterKey(String scope, String decision) {}

  private final MeterRegistry registry;
  /** Counters are looked up once per scope and decision; the listener runs on every command call. */
  private final ConcurrentHashMap<MeterKey, Counter> counters = new ConcurrentHashMap<>();

  /** @param registry where the counters live */
  public MicrometerIdempotencyListener(MeterRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  @Override
  public void claimed(String scope, String key) {
    count(scope, "claimed");
  }

  @Override
  public void completed(String scope, String key) {
    count(scope, "completed");
  }

  @Override
  public void replayed(String scope, String key) {
    count(scope, "replayed");
  }

  @Override
  public void keyReused(String scope, String key) {
    count(scope, "key_reused");
  }

  @Override
  public void invalidKey(String scope, String rule) {
    count(scope, "invalid_key");
  }

  @Override
  public void inFlightRejected(String scope, String key) {
    count(scope, "in_flight_rejected");
  }

  @Override
  public void takenOver(String scope, String key) {
    count(scope, "taken_over");
  }

  @Override
  public void released(String scope, String key) {
    count(scope, "released");
  }

  @Override
  public void leaseLost(String scope, String key) {
    count(scope, "lease_lost");
  }

  private void count(String scope, String decision) {
    counters.computeIfAbsent(new MeterKey(scope, decision), meter -> Counter.builder(METER)
            .description("Decisions idem took for idempotent commands")
            .tag("scope", meter.scope())
            .tag("decision", meter.decision())
            .register(registry))
        .increment();
  }
}
