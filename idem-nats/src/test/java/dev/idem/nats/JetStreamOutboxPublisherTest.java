package dev.idem.nats;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.idem.brokers.testing.OutboxPublisherContract;
import dev.idem.runtime.OutboxMessage;
import dev.idem.runtime.OutboxPublisher;
import dev.idem.runtime.PublishOutcome;
import io.nats.client.Options;
import io.nats.client.api.MessageInfo;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The publisher contract on the shared NATS JetStream, with a stream of each test's own. */
class JetStreamOutboxPublisherTest extends OutboxPublisherContract {

  private NatsTestServer server;

  @BeforeEach
  void connect() {
    server = NatsTestServer.connect();
  }

  @AfterEach
  void disconnect() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @Override
  protected OutboxPublisher newPublisher() {
    return JetStreamOutboxPublisher.builder(server.connection()).build();
  }

  @Override
  protected OutboxPublisher unreachablePublisher() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    return JetStreamOutboxPublisher.builder(Options.builder().server("nats://127.0.0.1:" + closedPort)
        .connectionTimeout(Duration.ofSeconds(1)).maxReconnects(0).build()).build();
  }

  @Override
  protected String newDestination() throws Exception {
    return NatsTestServer.subjectOf(server.createStream());
  }

  @Override
  protected String unroutableDestination() {
    return "idem-test-no-stream." + UUID.randomUUID().toString().replace("-", "");
  }

  @Override
  protected int oversizedPayloadBytes() {
    return (int) server.connection().getServerInfo().getMaxPayload() + 1;
  }

  @Override
  protected boolean brokerDropsDuplicateIds() {
    return true;
  }

  @Override
  protected List<Received> readBack(String destination, int expected, Duration timeout) throws Exception {
    String stream = NatsTestServer.streamOf(destination);
    long deadline = System.nanoTime() + timeout.toNanos();
    long count = 0;
    while (System.nanoTime() < deadline) {
      count = server.management().getStreamInfo(stream).getStreamState().getMsgCount();
      if (count >= expected) {
        break;
      }
      Thread.sleep(20);
    }
    List<Received> received = new ArrayList<>();
    for (long sequence = 1; sequence <= count; sequence++) {
      MessageInfo message = server.management().getMessage(stream, sequence);
      Map<String, String> headers = new HashMap<>();
      if (message.getHeaders() != null) {
        for (String name : message.getHeaders().keySet()) {
          headers.put(name, message.getHeaders().getLast(name));
        }
      }
      received.add(new Received(headers.get("Nats-Msg-Id"), headers.get(JetStreamOutboxPublisher.PARTITION_KEY_HEADER),
          headers, new String(message.getData(), StandardCharsets.UTF_8)));
    }
    return received;
  }

  @Test
  void aPayloadOverThePublishersOwnLimitIsParked() throws Exception {
    String destination = newDestination();
    try (OutboxPublisher publisher =
             JetStreamOutboxPublisher.builder(server.connection()).maxPayloadBytes(10).build()) {
      List<PublishOutcome> outcomes = publisher.publish(List.of(
          message(destination, null, "{}"), message(destination, null, "{\"long\":\"enough\"}")));
      assertEquals(List.of(PublishOutcome.Status.SENT, PublishOutcome.Status.PARK),
          outcomes.stream().map(PublishOutcome::status).toList(), outcomes.toString());
    }
  }

  @Test
  void aDuplicateInOneBatchIsSentOnceAndBothAreSent() throws Exception {
    String destination = newDestination();
    OutboxMessage event = message(destination, "k", "{}");
    try (OutboxPublisher publisher = newPublisher()) {
      List<PublishOutcome> outcomes = publisher.publish(List.of(event, event));
      assertEquals(List.of(PublishOutcome.Status.SENT, PublishOutcome.Status.SENT),
          outcomes.stream().map(PublishOutcome::status).toList());
    }
    assertEquals(1, readBack(destination, 2, Duration.ofSeconds(2)).size());
  }
}
