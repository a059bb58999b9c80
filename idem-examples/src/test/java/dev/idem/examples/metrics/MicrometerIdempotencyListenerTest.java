package dev.idem.examples.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.idem.examples.metrics.PaymentGateway.CardDeclinedException;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyKeyReusedException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.atomic.AtomicInteger;
import org.h2.jdbcx.JdbcConnectionPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The generated CLAIM command, with its decisions counted in a Micrometer registry. */
class MicrometerIdempotencyListenerTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final AtomicInteger providerCalls = new AtomicInteger();
  private JdbcConnectionPool pool;
  private PaymentGateway gateway;

  @BeforeEach
  void setUp() {
    pool = JdbcConnectionPool.create("jdbc:h2:mem:metrics-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1", "sa", "");
    IdemRuntime runtime = IdemRuntime.builder()
        .dataSource(pool)
        .listener(new MicrometerIdempotencyListener(registry))
        .build();
    runtime.createSchema();
    PaymentGateway provider = (paymentId, card, amountCents) -> {
      providerCalls.incrementAndGet();
      if (card.startsWith("4000")) {
        throw new CardDeclinedException("Card declined", "insufficient_funds");
      }
      return "charge-" + paymentId;
    };
    gateway = new PaymentGateway_Idempotent(provider, runtime);
  }

  @AfterEach
  void tearDown() {
    pool.dispose();
  }

  private double count(String decision) {
    Counter counter = registry.find(MicrometerIdempotencyListener.METER)
        .tags("scope", "payments.charge", "decision", decision).counter();
    return counter == null ? 0 : counter.count();
  }

  @Test
  void countsClaimsCompletionsReplaysAndRejections() throws Exception {
    assertEquals("charge-p1", gateway.charge("p1", "4242", 1_000));
    assertEquals("charge-p1", gateway.charge("p1", "4242", 1_000));
    assertEquals("charge-p1", gateway.charge("p1", "4242", 1_000));
    assertThrows(IdempotencyKeyReusedException.class, () -> gateway.charge("p1", "4242", 2_000));

    assertEquals(1, providerCalls.get());
    assertEquals(1, count("claimed"));
    assertEquals(1, count("completed"));
    assertEquals(2, count("replayed"));
    assertEquals(1, count("key_reused"));
  }

  @Test
  void aDeclinedCardIsAskedForOnceAndReplayed() {
    CardDeclinedException first = assertThrows(CardDeclinedException.class,
        () -> gateway.charge("p2", "4000-0000", 500));
    CardDeclinedException retried = assertThrows(CardDeclinedException.class,
        () -> gateway.charge("p2", "4000-0000", 500));

    assertEquals(1, providerCalls.get());
    assertEquals(first.getMessage(), retried.getMessage());
    assertEquals("insufficient_funds", retried.declineCode());
    assertEquals(1, count("completed"));
    assertEquals(1, count("replayed"));
  }
}
