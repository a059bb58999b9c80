package dev.idem.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.brokers.testing.KafkaTestBroker;
import dev.idem.brokers.testing.OutboxPublisherContract;
import dev.idem.runtime.OutboxPublisher;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The publisher contract against a KRaft broker started in this JVM, and the settings the publisher refuses. */
class KafkaOutboxPublisherTest extends OutboxPublisherContract {

  private static KafkaTestBroker broker;

  @BeforeAll
  static void startBroker() {
    broker = KafkaTestBroker.start();
  }

  @AfterAll
  static void stopBroker() {
    if (broker != null) {
      broker.close();
    }
  }

  @Override
  protected OutboxPublisher newPublisher() {
    return KafkaOutboxPublisher.builder(Map.of("bootstrap.servers", broker.bootstrapServers())).build();
  }

  @Override
  protected OutboxPublisher unreachablePublisher() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    return KafkaOutboxPublisher.builder(Map.of("bootstrap.servers", "127.0.0.1:" + closedPort,
        "max.block.ms", "1000")).timeout(Duration.ofSeconds(2)).build();
  }

  @Override
  protected String newDestination() {
    String topic = "idem-test-" + UUID.randomUUID();
    broker.createTopic(topic, 3);
    return topic;
  }

  @Override
  protected String unroutableDestination() {
    return "no topic has spaces: " + UUID.randomUUID();
  }

  @Override
  protected int oversizedPayloadBytes() {
    return 2 * 1024 * 1024; // over the producer's max.request.size and the broker's message.max.bytes (1 MiB)
  }

  @Override
  protected boolean brokerDropsDuplicateIds() {
    return false;
  }

  @Override
  protected List<Received> readBack(String destination, int expected, Duration timeout) {
    Map<String, Object> config = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    List<Received> received = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
             new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (PartitionInfo info : consumer.partitionsFor(destination)) {
        partitions.add(new TopicPartition(destination, info.partition()));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (received.size() < expected && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
          Map<String, String> headers = new HashMap<>();
          for (Header header : record.headers()) {
            headers.put(header.key(), new String(header.value(), StandardCharsets.UTF_8));
          }
          received.add(new Received(headers.get("idem-message-id"),
              record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8), headers,
              new String(record.value(), StandardCharsets.UTF_8)));
        }
      }
    }
    return received;
  }

  @Test
  void aTopicThatDoesNotExistIsRetriedAfterOneMetadataWaitPerBatch() throws Exception {
    String missing = "idem-test-missing-" + UUID.randomUUID(); // a valid name: it may be created later
    String existing = newDestination();
    try (OutboxPublisher publisher = KafkaOutboxPublisher.builder(Map.of("bootstrap.servers",
        broker.bootstrapServers(), "max.block.ms", "1000")).build()) {
      List<dev.idem.runtime.PublishOutcome> outcomes = publisher.publish(List.of(message(missing, "k", "{}"),
          message(existing, "k", "{}"), message(missing, "k", "{}")));
      assertEquals(List.of(dev.idem.runtime.PublishOutcome.Status.RETRY, dev.idem.runtime.PublishOutcome.Status.SENT,
          dev.idem.runtime.PublishOutcome.Status.RETRY),
          outcomes.stream().map(dev.idem.runtime.PublishOutcome::status).toList(), outcomes.toString());
    }
  }

  @Test
  void settingsThatWouldLoseOrReorderEventsAreRefused() {
    IllegalArgumentException acks = assertThrows(IllegalArgumentException.class,
        () -> KafkaOutboxPublisher.builder(Map.of("bootstrap.servers", "x:1", "acks", "1")));
    assertTrue(acks.getMessage().contains("acks=all"), acks.getMessage());
    IllegalArgumentException idempotence = assertThrows(IllegalArgumentException.class,
        () -> KafkaOutboxPublisher.builder(Map.of("bootstrap.servers", "x:1", "enable.idempotence", "false")));
    assertTrue(idempotence.getMessage().contains("enable.idempotence=true"), idempotence.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> KafkaOutboxPublisher.builder(Map.of("bootstrap.servers", "x:1", "transactional.id", "t")));
    assertEquals("producerConfig needs bootstrap.servers",
        assertThrows(IllegalArgumentException.class, () -> KafkaOutboxPublisher.builder(Map.of())).getMessage());
  }
}
