package dev.idem.rabbitmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.idem.brokers.testing.OutboxPublisherContract;
import dev.idem.runtime.OutboxMessage;
import dev.idem.runtime.OutboxPublisher;
import dev.idem.runtime.PublishOutcome;
import dev.idem.runtime.PublishOutcome.Status;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The publisher contract on the shared RabbitMQ, and what only RabbitMQ has: mandatory returns, the default exchange. */
class RabbitOutboxPublisherTest extends OutboxPublisherContract {

  private static final int MAX_PAYLOAD = 64 * 1024;

  private RabbitTestBroker broker;
  /** exchange -> the queue bound to it with "#" */
  private final Map<String, String> queues = new HashMap<>();

  @BeforeEach
  void connect() {
    broker = RabbitTestBroker.connect();
  }

  @AfterEach
  void disconnect() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  @Override
  protected OutboxPublisher newPublisher() {
    return RabbitOutboxPublisher.builder(broker.connection()).maxPayloadBytes(MAX_PAYLOAD).build();
  }

  @Override
  protected OutboxPublisher unreachablePublisher() throws IOException {
    ConnectionFactory factory = RabbitTestBroker.factory();
    try (ServerSocket socket = new ServerSocket(0)) {
      factory.setPort(socket.getLocalPort()); // closed again below: nobody listens there
    }
    factory.setConnectionTimeout(1_000);
    return RabbitOutboxPublisher.builder(factory).build();
  }

  @Override
  protected String newDestination() throws IOException {
    String exchange = broker.declareExchange();
    String queue = broker.declareQueue();
    broker.admin().queueBind(queue, exchange, "#");
    queues.put(exchange, queue);
    return exchange;
  }

  @Override
  protected String unroutableDestination() {
    return "idem-test-no-such-exchange-" + UUID.randomUUID();
  }

  @Override
  protected int oversizedPayloadBytes() {
    return MAX_PAYLOAD + 1;
  }

  @Override
  protected boolean brokerDropsDuplicateIds() {
    return false;
  }

  @Override
  protected List<Received> readBack(String destination, int expected, Duration timeout) throws Exception {
    String queue = queues.get(destination);
    List<Received> received = new ArrayList<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (received.size() < expected && System.nanoTime() < deadline) {
      GetResponse response = broker.admin().basicGet(queue, true);
      if (response == null) {
        Thread.sleep(20);
        continue;
      }
      Map<String, String> headers = new HashMap<>();
      if (response.getProps().getHeaders() != null) {
        response.getProps().getHeaders().forEach((name, value) -> headers.put(name, String.valueOf(value)));
      }
      received.add(new Received(response.getProps().getMessageId(), response.getEnvelope().getRoutingKey(), headers,
          new String(response.getBody(), java.nio.charset.StandardCharsets.UTF_8)));
    }
    return received;
  }

  @Test
  void aMessageNoQueueIsBoundForIsReturnedAndParked() throws Exception {
    String routed = newDestination();
    String unbound = broker.declareExchange(); // exists, no queue bound: the broker returns mandatory messages
    List<OutboxMessage> batch = List.of(message(routed, "a", "{}"), message(unbound, "a", "{}"),
        message(routed, "b", "{}"));
    List<PublishOutcome> outcomes;
    try (OutboxPublisher publisher = newPublisher()) {
      outcomes = publisher.publish(batch);
    }
    assertEquals(List.of(Status.SENT, Status.PARK, Status.SENT),
        outcomes.stream().map(PublishOutcome::status).toList(), outcomes.toString());
    assertTrue(outcomes.get(1).reason().contains("unroutable"), outcomes.get(1).reason());
    assertEquals(2, readBack(routed, 2, Duration.ofSeconds(10)).size());
  }

  @Test
  void theDefaultExchangeRoutesByQueueName() throws Exception {
    String queue = broker.declareQueue();
    try (OutboxPublisher publisher = RabbitOutboxPublisher.builder(broker.connection())
        .exchange(message -> "").routingKey(OutboxMessage::destination).build()) {
      List<PublishOutcome> outcomes = publisher.publish(List.of(message(queue, "k", "{\"a\":1}")));
      assertEquals(Status.SENT, outcomes.get(0).status(), outcomes.toString());
    }
    assertEquals(1, broker.readyMessages(queue));
  }
}
