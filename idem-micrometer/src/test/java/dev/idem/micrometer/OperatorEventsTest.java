package dev.idem.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/** The events an operator must look at are counted like every decision, by scope, never by key. */
class OperatorEventsTest {

  @Test
  void outcomeUnknownAndBrokenRecordsAreCounted() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    MicrometerIdempotencyListener listener = new MicrometerIdempotencyListener(registry);
    listener.outcomeUnknown("payments.charge", "k-1");
    listener.outcomeUnknown("payments.charge", "k-2");
    listener.brokenRecord("payments.charge", "k-3");
    assertEquals(2.0, count(registry, "outcome_unknown"));
    assertEquals(1.0, count(registry, "broken_record"));
    assertEquals(0.0, count(registry, "lease_lost"));
  }

  private static double count(SimpleMeterRegistry registry, String outcome) {
    return registry.get(MicrometerIdempotencyListener.DECISIONS).tag("scope", "payments.charge")
        .tag("outcome", outcome).counter().count();
  }
}
