package dev.idem.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/** Day-partition maintenance is counted per table and event, with the records the removed days held. */
class PartitionEventsTest {

  @Test
  void premakeDropArchiveAndFailuresAreCounted() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    MicrometerIdempotencyListener listener = new MicrometerIdempotencyListener(registry);
    listener.partitionCreated("idem_record", "idem_record_p20300108");
    listener.partitionCreated("idem_record", "idem_record_p20300109");
    listener.partitionDropped("idem_record", "idem_record_p20300101", 660_000);
    listener.partitionArchived("idem_record", "archive.idem_record_p20300102", 5);
    listener.partitionMaintenanceFailed("idem_record", new IllegalStateException("lock timeout"));
    listener.partitionMaintenanceFailed("idem_record", new IllegalStateException("lock timeout"));
    assertEquals(2.0, count(registry, MicrometerIdempotencyListener.PARTITIONS, "created"));
    assertEquals(1.0, count(registry, MicrometerIdempotencyListener.PARTITIONS, "dropped"));
    assertEquals(1.0, count(registry, MicrometerIdempotencyListener.PARTITIONS, "archived"));
    assertEquals(2.0, count(registry, MicrometerIdempotencyListener.PARTITIONS, "failed"));
    assertEquals(660_000.0, count(registry, MicrometerIdempotencyListener.PARTITION_RECORDS, "dropped"));
    assertEquals(5.0, count(registry, MicrometerIdempotencyListener.PARTITION_RECORDS, "archived"));
  }

  private static double count(SimpleMeterRegistry registry, String name, String event) {
    return registry.get(name).tag("table", "idem_record").tag("event", event).counter().count();
  }
}
