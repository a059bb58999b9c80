package dev.idem.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.micrometer.MicrometerIdempotencyListener;
import dev.idem.runtime.IdemRuntime;
import dev.idem.testing.DatabaseContract;
import dev.idem.testing.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The front tier's metrics through idem-micrometer, on a redis-server of the test's own: lookups by result, the
 * tier's commands by operation and outcome, and the circuit gauge following a kill and a restart.
 */
@Timeout(60)
class RedisMetricsTest extends DatabaseContract {

  private static final String SCOPE = "redis.payments.charge";

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }

  @Override
  protected void prepare() {
    IdemRuntime.builder().dataSource(database.dataSource()).build().createSchema();
  }

  @Test
  void hitsMissesFallbacksCommandsAndTheCircuit() throws Exception {
    MicrometerIdempotencyListener metrics = new MicrometerIdempotencyListener(registry);
    try (PrivateRedis redis = new PrivateRedis().start();
         RedisFrontTier tier = RedisFrontTier.builder().listener(metrics).commandTimeout(Duration.ofMillis(200))
             .circuitBreaker(2, Duration.ofMillis(200)).connect(redis.uri())) {
      Orders orders = new Orders_Idempotent(new Orders() {
        @Override
        public String create(String requestId, String sku) {
          return requestId + sku;
        }

        @Override
        public String charge(String paymentId, long amountCents) {
          return paymentId + amountCents;
        }

        @Override
        public String chargeWaiting(String paymentId, long amountCents) {
          return paymentId + amountCents;
        }
      }, IdemRuntime.builder().dataSource(database.dataSource()).resultCache(false).frontTier(tier)
          .listener(metrics).build());

      orders.charge("p1", 1); // miss
      orders.charge("p1", 1); // hit
      orders.charge("p1", 1); // hit
      assertEquals(1, lookups("miss"));
      assertEquals(2, lookups("hit"));
      assertEquals(3, registry.get(MicrometerIdempotencyListener.FRONT_TIER_COMMANDS)
          .tags("operation", "lookup", "outcome", "success").timer().count());
      assertEquals(1, registry.get(MicrometerIdempotencyListener.FRONT_TIER_COMMANDS)
          .tags("operation", "publish", "outcome", "success").timer().count());
      assertEquals(0, circuitOpen(registry));

      redis.kill();
      orders.charge("p2", 2);
      orders.charge("p2", 2);
      orders.charge("p2", 2); // circuit open: not asked
      assertEquals(3, lookups("fallback"));
      // The first lookup failed; its caller's publish failed too and opened the circuit (two in a row).
      assertEquals(1, registry.get(MicrometerIdempotencyListener.FRONT_TIER_COMMANDS)
          .tags("operation", "lookup", "outcome", "error").timer().count());
      assertEquals(1, circuitOpen(registry));

      redis.start();
      Thread.sleep(300);
      orders.charge("p3", 3); // the probe
      assertEquals(0, circuitOpen(registry));
      assertEquals(1, registry.get(MicrometerIdempotencyListener.FRONT_TIER_CIRCUIT_CHANGES)
          .tags("state", "closed").counter().count());
    }
  }

  private static double circuitOpen(SimpleMeterRegistry registry) {
    return registry.get(MicrometerIdempotencyListener.FRONT_TIER_CIRCUIT).gauge().value();
  }

  private double lookups(String result) {
    return registry.get(MicrometerIdempotencyListener.FRONT_TIER_LOOKUPS).tags("scope", SCOPE, "result", result)
        .counter().count();
  }
}
