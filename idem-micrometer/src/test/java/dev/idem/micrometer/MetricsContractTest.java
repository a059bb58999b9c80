package dev.idem.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyInProgressException;
import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.runtime.IdempotencyLeaseLostException;
import dev.idem.runtime.InvalidIdempotencyKeyException;
import dev.idem.testing.DatabaseContract;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The listener on a real runtime and database, fed by generated commands: every decision lands in its counter
 * and every call in its timer, tagged by scope and outcome only. The concrete subclasses pick the database.
 */
@Timeout(60)
abstract class MetricsContractTest extends DatabaseContract {

  private static final String CHARGE = "payments.charge";
  private static final String ORDER = "orders.create";

  private final ExecutorService otherCaller = Executors.newSingleThreadExecutor();
  private SimpleMeterRegistry registry;
  private Charges charges;
  /** What the next charge does in place of the provider call. */
  private volatile Supplier<String> provider;

  @Override
  protected void prepare() {
    IdemRuntime.builder().dataSource(database.dataSource()).build().createSchema();
  }

  /** A fresh registry, and a runtime reporting to it, for every test: meters are registered once per scope. */
  @BeforeEach
  void freshRegistry() {
    database.execute("DELETE FROM idem_record");
    clock.set(Instant.parse("2031-05-01T10:00:00Z"));
    registry = new SimpleMeterRegistry();
    IdemRuntime runtime = IdemRuntime.builder()
        .dataSource(database.dataSource())
        .clock(clock).databaseTime(false)
        .listener(new MicrometerIdempotencyListener(registry))
        .build();
    charges = new Charges_Idempotent(new Charges() {
      @Override
      public String charge(String paymentId, long amountCents) {
        return provider.get();
      }

      @Override
      public String createOrder(String requestId, String sku) {
        if (sku.isEmpty()) {
          throw new IllegalArgumentException("no sku");
        }
        return "order-" + requestId;
      }
    }, runtime);
  }

  @AfterAll
  void stopOtherCaller() {
    otherCaller.shutdownNow();
  }

  @Test
  void executionsReplaysAndRejectionsAreCountedAndTimed() {
    assertEquals("order-r1", charges.createOrder("r1", "sku-1"));
    assertEquals("order-r1", charges.createOrder("r1", "sku-1"));
    assertEquals("order-r1", charges.createOrder("r1", "sku-1"));
    assertThrows(IdempotencyKeyReusedException.class, () -> charges.createOrder("r1", "sku-2"));
    assertThrows(InvalidIdempotencyKeyException.class, () -> charges.createOrder("r 1;--", "sku-1"));
    assertThrows(IllegalArgumentException.class, () -> charges.createOrder("r2", ""));

    assertEquals(1, count(ORDER, "executed"));
    assertEquals(2, count(ORDER, "replayed"));
    assertEquals(1, count(ORDER, "key_reused"));
    assertEquals(1, count(ORDER, "invalid_key"));
    assertEquals(3, timer(ORDER, "success").count());
    assertEquals(1, timer(ORDER, "key_reused").count());
    assertEquals(1, timer(ORDER, "invalid_key").count());
    assertEquals(1, timer(ORDER, "failed").count(), "the body's own exception");
    assertTrue(timer(ORDER, "success").totalTime(TimeUnit.NANOSECONDS) > 0);
    assertEquals(0, count(CHARGE, "executed"), "other scopes are untouched");
  }

  @Test
  void aCallerRejectedWhileAnotherHoldsTheLeaseIsCountedInFlight() throws Exception {
    CountDownLatch inBody = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    provider = () -> {
      inBody.countDown();
      await(release);
      return "charged";
    };
    Future<String> holder = otherCaller.submit(() -> charges.charge("p-1", 500));
    assertTrue(inBody.await(30, TimeUnit.SECONDS));

    assertThrows(IdempotencyInProgressException.class, () -> charges.charge("p-1", 500));
    release.countDown();
    assertEquals("charged", holder.get(30, TimeUnit.SECONDS));

    assertEquals(1, count(CHARGE, "in_flight"));
    assertEquals(1, timer(CHARGE, "in_flight").count());
    assertEquals(1, count(CHARGE, "executed"));
  }

  @Test
  void aTakeoverAndTheStaleOwnersLostLeaseAreCounted() {
    provider = () -> {
      clock.advance(Duration.ofSeconds(31)); // this caller stalls past its lease, another takes the key over
      provider = () -> "new owner";
      try {
        return otherCaller.submit(() -> charges.charge("p-2", 700)).get(30, TimeUnit.SECONDS).replace("new", "old");
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    };

    assertThrows(IdempotencyLeaseLostException.class, () -> charges.charge("p-2", 700));

    assertEquals(1, count(CHARGE, "taken_over"));
    assertEquals(1, count(CHARGE, "lease_lost"));
    assertEquals(1, count(CHARGE, "executed"), "only the new owner's outcome stands");
    assertEquals(1, timer(CHARGE, "lease_lost").count());
    assertEquals(1, timer(CHARGE, "success").count());
  }

  /** Keys are unbounded; tags must not be. Every meter carries exactly scope and outcome. */
  @Test
  void keysNeverBecomeTags() {
    List<String> keys = List.of("k-1", "k-2", "k-3");
    for (String key : keys) {
      charges.createOrder(key, "sku");
      charges.createOrder(key, "sku");
    }

    List<Meter> meters = registry.getMeters();
    assertFalse(meters.isEmpty());
    for (Meter meter : meters) {
      Set<String> tagKeys = meter.getId().getTags().stream().map(Tag::getKey).collect(Collectors.toSet());
      assertEquals(Set.of("scope", "outcome"), tagKeys, meter.getId().toString());
      for (Tag tag : meter.getId().getTags()) {
        assertFalse(tag.getValue().contains("k-"), meter.getId().toString());
      }
    }
    assertEquals(3, count(ORDER, "executed"));
    assertEquals(3, count(ORDER, "replayed"));
  }

  private double count(String scope, String outcome) {
    Counter counter = registry.find(MicrometerIdempotencyListener.DECISIONS)
        .tags("scope", scope, "outcome", outcome).counter();
    return counter == null ? 0 : counter.count();
  }

  private Timer timer(String scope, String outcome) {
    Timer timer = registry.find(MicrometerIdempotencyListener.DURATION)
        .tags("scope", scope, "outcome", outcome).timer();
    if (timer == null) {
      throw new AssertionError("no timer " + scope + "/" + outcome + " in " + registry.getMetersAsString());
    }
    return timer;
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new AssertionError("not released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
