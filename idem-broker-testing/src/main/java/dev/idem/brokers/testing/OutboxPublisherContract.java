package dev.idem.brokers.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.OutboxMessage;
import dev.idem.runtime.OutboxPublisher;
import dev.idem.runtime.PublishOutcome;
import dev.idem.runtime.PublishOutcome.Status;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The contract every {@link OutboxPublisher} adapter keeps, as a JUnit 5 test class its test extends (as ShedLock's
 * providers extend its integration test): the subclass says how to make a publisher, a destination of its own and
 * how to read a destination back from the real broker; the tests here publish and read back.
 *
 * <p>What is checked: a batch arrives with the message id as the broker's native id and as the
 * {@value OutboxMessage#MESSAGE_ID_HEADER} header, the event type header and the event's own headers; messages of one
 * partition key arrive in the order published; an unroutable or oversized message is parked and the others of its
 * batch are sent; an unreachable broker makes every message {@link Status#RETRY}, never an exception; a message
 * published twice (at-least-once) reaches consumers with the same id both times, or once where the broker drops
 * duplicates by id.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class OutboxPublisherContract {

  /** A message as read back from the broker. */
  public record Received(String nativeMessageId, String partitionKey, Map<String, String> headers, String payload) {

    /**
     * Copies the headers.
     *
     * @param nativeMessageId the broker's own message id field (RabbitMQ's {@code message-id}, JetStream's
     *     {@code Nats-Msg-Id}); for Kafka, which has none, the {@value OutboxMessage#MESSAGE_ID_HEADER} header
     * @param partitionKey the record key or routing key the message was published with, or null
     * @param headers the message's headers
     * @param payload the payload as UTF-8 text
     */
    public Received {
      headers = Map.copyOf(headers);
    }
  }

  /**
   * Makes a publisher connected to the broker under test; the contract closes it.
   *
   * @return a new publisher
   * @throws Exception if the broker cannot be reached
   */
  protected abstract OutboxPublisher newPublisher() throws Exception;

  /**
   * Makes a publisher whose broker cannot be reached (a closed port); the contract closes it.
   *
   * @return a new publisher that cannot connect
   * @throws Exception if the publisher cannot even be made
   */
  protected abstract OutboxPublisher unreachablePublisher() throws Exception;

  /**
   * Makes a destination of this test's own (a topic, an exchange with a queue, a subject of a stream), which the
   * subclass deletes after the test.
   *
   * @return the destination's name, as {@link OutboxMessage#destination()} names it
   * @throws Exception if the broker refuses
   */
  protected abstract String newDestination() throws Exception;

  /**
   * @return a destination the broker can never route to (no such exchange, an invalid topic name, a subject of no
   *     stream)
   */
  protected abstract String unroutableDestination();

  /** @return a payload size, in bytes, that the adapter refuses (its own limit or the broker's) */
  protected abstract int oversizedPayloadBytes();

  /** @return whether the broker drops a second message with the same id (JetStream's duplicate window) */
  protected abstract boolean brokerDropsDuplicateIds();

  /**
   * Reads what arrived at a destination, in the order the broker delivers it (per partition key, at least).
   *
   * @param destination a destination from {@link #newDestination()}
   * @param expected return as soon as this many arrived
   * @param timeout return what arrived by then
   * @return the messages read
   * @throws Exception if the broker cannot be read
   */
  protected abstract List<Received> readBack(String destination, int expected, Duration timeout) throws Exception;

  /**
   * A message of this contract: a fresh id, the event type {@code TestEvent}, one header of its own.
   *
   * @param destination where it goes
   * @param key the partition key, or null
   * @param payload the JSON payload
   * @return the message
   */
  protected static OutboxMessage message(String destination, String key, String payload) {
    return new OutboxMessage(UUID.randomUUID().toString(), destination, key, "TestEvent",
        Map.of("tenant", "t-1"), payload, Instant.now());
  }

  @Test
  void aBatchArrivesWithTheMessageIdAndTheHeaders() throws Exception {
    String destination = newDestination();
    List<OutboxMessage> batch = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      batch.add(message(destination, "key-" + (i % 2), "{\"n\":" + i + "}"));
    }
    try (OutboxPublisher publisher = newPublisher()) {
      assertAll(Status.SENT, publisher.publish(batch));
    }
    List<Received> received = readBack(destination, batch.size(), Duration.ofSeconds(20));
    assertEquals(batch.size(), received.size(), "every message arrived once");
    Map<String, Received> byId = new LinkedHashMap<>();
    for (Received message : received) {
      byId.put(message.headers().get(OutboxMessage.MESSAGE_ID_HEADER), message);
    }
    for (OutboxMessage sent : batch) {
      Received got = byId.get(sent.messageId());
      assertNotNull(got, "message " + sent.messageId() + " arrived with its id header");
      assertEquals(sent.messageId(), got.nativeMessageId(), "the broker's own id is the message id");
      assertEquals("TestEvent", got.headers().get(OutboxMessage.EVENT_TYPE_HEADER));
      assertEquals("t-1", got.headers().get("tenant"), "the event's own headers travel too");
      assertEquals(sent.payload(), got.payload());
    }
  }

  @Test
  void messagesOfOneKeyArriveInTheOrderPublished() throws Exception {
    String destination = newDestination();
    List<OutboxMessage> batch = new ArrayList<>();
    for (int i = 0; i < 90; i++) {
      batch.add(message(destination, "order-" + (i % 3), "{\"seq\":" + i + "}"));
    }
    try (OutboxPublisher publisher = newPublisher()) {
      assertAll(Status.SENT, publisher.publish(batch.subList(0, 45)));
      assertAll(Status.SENT, publisher.publish(batch.subList(45, 90)));
    }
    List<Received> received = readBack(destination, batch.size(), Duration.ofSeconds(20));
    assertEquals(batch.size(), received.size());
    Map<String, List<String>> sentByKey = batch.stream().collect(Collectors.groupingBy(
        OutboxMessage::partitionKey, Collectors.mapping(OutboxMessage::messageId, Collectors.toList())));
    Map<String, List<String>> receivedByKey = received.stream().collect(Collectors.groupingBy(
        Received::partitionKey, Collectors.mapping(r -> r.headers().get(OutboxMessage.MESSAGE_ID_HEADER),
            Collectors.toList())));
    assertEquals(sentByKey, receivedByKey, "per key, the order published");
  }

  @Test
  void anUnroutableMessageIsParkedAndTheOthersAreSent() throws Exception {
    String destination = newDestination();
    OutboxMessage first = message(destination, "k", "{\"n\":1}");
    OutboxMessage lost = message(unroutableDestination(), "k", "{\"n\":2}");
    OutboxMessage last = message(destination, "k", "{\"n\":3}");
    List<PublishOutcome> outcomes;
    try (OutboxPublisher publisher = newPublisher()) {
      outcomes = publisher.publish(List.of(first, lost, last));
      // The publisher stays usable after it.
      assertAll(Status.SENT, publisher.publish(List.of(message(destination, "k", "{\"n\":4}"))));
    }
    assertEquals(List.of(Status.SENT, Status.PARK, Status.SENT), statuses(outcomes), outcomes.toString());
    assertTrue(outcomes.get(1).reason() != null && !outcomes.get(1).reason().isBlank(), "a parked row has a reason");
    List<Received> received = readBack(destination, 3, Duration.ofSeconds(20));
    assertEquals(3, received.size());
  }

  @Test
  void anOversizedMessageIsParkedAndTheOthersAreSent() throws Exception {
    String destination = newDestination();
    OutboxMessage first = message(destination, "k", "{\"n\":1}");
    OutboxMessage huge = message(destination, "k", "\"" + "x".repeat(oversizedPayloadBytes()) + "\"");
    OutboxMessage last = message(destination, "k", "{\"n\":3}");
    List<PublishOutcome> outcomes;
    try (OutboxPublisher publisher = newPublisher()) {
      outcomes = publisher.publish(List.of(first, huge, last));
    }
    assertEquals(List.of(Status.SENT, Status.PARK, Status.SENT), statuses(outcomes), outcomes.toString());
    List<Received> received = readBack(destination, 3, Duration.ofSeconds(5));
    assertEquals(List.of(first.messageId(), last.messageId()),
        received.stream().map(r -> r.headers().get(OutboxMessage.MESSAGE_ID_HEADER)).toList());
  }

  @Test
  void anUnreachableBrokerMeansRetryNeverAnException() throws Exception {
    List<OutboxMessage> batch = List.of(message("anywhere", "k", "{}"), message("anywhere", null, "{}"));
    List<PublishOutcome> outcomes;
    try (OutboxPublisher publisher = unreachablePublisher()) {
      outcomes = publisher.publish(batch);
      assertAll(Status.RETRY, outcomes);
      assertAll(Status.RETRY, publisher.publish(batch)); // and again, still no exception
    }
    assertTrue(outcomes.stream().allMatch(o -> o.reason() != null), outcomes.toString());
  }

  @Test
  void aRepublishedMessageKeepsItsId() throws Exception {
    String destination = newDestination();
    OutboxMessage event = message(destination, "k", "{\"n\":1}");
    // The relay died after publishing and before marking the row sent: another relay publishes it again.
    try (OutboxPublisher publisher = newPublisher()) {
      assertAll(Status.SENT, publisher.publish(List.of(event)));
    }
    try (OutboxPublisher publisher = newPublisher()) {
      assertAll(Status.SENT, publisher.publish(List.of(event)));
    }
    List<Received> received =
        readBack(destination, 2, brokerDropsDuplicateIds() ? Duration.ofSeconds(3) : Duration.ofSeconds(20));
    assertEquals(brokerDropsDuplicateIds() ? 1 : 2, received.size(),
        brokerDropsDuplicateIds() ? "the broker dropped the duplicate" : "delivered twice (at least once)");
    for (Received message : received) {
      assertEquals(event.messageId(), message.nativeMessageId());
      assertEquals(event.messageId(), message.headers().get(OutboxMessage.MESSAGE_ID_HEADER));
    }
  }

  private static List<Status> statuses(List<PublishOutcome> outcomes) {
    return outcomes.stream().map(PublishOutcome::status).toList();
  }

  private static void assertAll(Status expected, List<PublishOutcome> outcomes) {
    for (PublishOutcome outcome : outcomes) {
      assertEquals(expected, outcome.status(), outcomes.toString());
    }
  }
}
