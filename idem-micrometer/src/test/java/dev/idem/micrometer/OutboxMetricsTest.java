package dev.idem.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdemAdmin;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.OutboxPublisher;
import dev.idem.runtime.OutboxRelay;
import dev.idem.runtime.OutboxRelayOptions;
import dev.idem.runtime.PublishOutcome;
import dev.idem.testing.IsolatedDatabase;
import dev.idem.testing.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A relay on H2 reports sent, retried and parked events and the lag through the Micrometer listener. */
class OutboxMetricsTest {

  @Test
  void aRelaysEventsAreCountedPerDestinationAndOutcomeWithTheLag() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (IsolatedDatabase database = IsolatedDatabase.open(TestDatabase.H2)) {
      IdemRuntime runtime = IdemRuntime.builder().dataSource(database.dataSource())
          .listener(new MicrometerIdempotencyListener(registry)).build();
      runtime.createSchema();
      // Written as an application would without generated code: the relay does not care who wrote the rows.
      database.execute(insert("00000000-0000-7000-8000-000000000001", "orders", "ok"),
          insert("00000000-0000-7000-8000-000000000002", "orders", "retry-once"),
          insert("00000000-0000-7000-8000-000000000003", "payments", "poison"));
      Set<String> retried = ConcurrentHashMap.newKeySet();
      OutboxPublisher publisher = messages -> {
        List<PublishOutcome> outcomes = new ArrayList<>();
        messages.forEach(m -> outcomes.add(switch (m.partitionKey()) {
          case "poison" -> PublishOutcome.park("rejected");
          case "retry-once" -> retried.add(m.messageId()) ? PublishOutcome.retry("down") : PublishOutcome.sent();
          default -> PublishOutcome.sent();
        }));
        return outcomes;
      };
      try (OutboxRelay relay = runtime.startOutboxRelay(publisher, OutboxRelayOptions.defaults()
          .withPollInterval(Duration.ofMillis(20)).withBackoff(Duration.ofMillis(50), Duration.ofMillis(50)))) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (sent(database) < 2 && System.nanoTime() < deadline) {
          Thread.sleep(10);
        }
      }
      assertEquals(2.0, count(registry, "orders", "sent"));
      assertEquals(1.0, count(registry, "orders", "retried"));
      assertEquals(1.0, count(registry, "payments", "parked"));
      assertEquals(2, registry.get(MicrometerIdempotencyListener.OUTBOX_LAG).tag("destination", "orders").timer()
          .count());
      assertTrue(registry.get(MicrometerIdempotencyListener.OUTBOX_LAG).timer().totalTime(TimeUnit.MILLISECONDS) >= 0);
      assertEquals(1, IdemAdmin.of(runtime).parkedOutboxEvents(10).size());
    }
  }

  private static String insert(String id, String destination, String key) {
    return "INSERT INTO idem_outbox (id, destination, partition_key, key_hash, event_type, headers, payload,"
        + " created_at, state, attempts, next_attempt_at) VALUES ('" + id + "', '" + destination + "', '" + key
        + "', 1, 'OrderCreated', NULL, '{}', 0, 'PENDING', 0, 0)";
  }

  private static long sent(IsolatedDatabase database) throws Exception {
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SELECT COUNT(*) FROM idem_outbox WHERE state = 'SENT'")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static double count(SimpleMeterRegistry registry, String destination, String outcome) {
    return registry.get(MicrometerIdempotencyListener.OUTBOX_EVENTS).tag("destination", destination)
        .tag("outcome", outcome).counter().count();
  }
}
