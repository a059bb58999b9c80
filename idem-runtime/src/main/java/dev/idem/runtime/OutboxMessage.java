package dev.idem.runtime;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * One event from the outbox table, as the relay hands it to an {@link OutboxPublisher}: written in the same
 * transaction as the business change that caused it, read back after that transaction committed.
 *
 * @param messageId the outbox row's id, unique and never reused: brokers carry it as their native message id
 *     (RabbitMQ's {@code message-id}, Kafka's {@code idem-message-id} header, JetStream's {@code Nats-Msg-Id}) and
 *     as the {@value #MESSAGE_ID_HEADER} header, so that consumers deduplicate by it
 * @param destination where the event goes: an exchange, a topic, a subject
 * @param partitionKey the key that keeps related events in order (Kafka's record key, a routing key), or null
 * @param eventType the event's name as declared (e.g. {@code OrderCreated}); also the {@value #EVENT_TYPE_HEADER}
 *     header
 * @param headers the headers written with the event (never null; the two above are added by publishers)
 * @param payload the event as JSON
 * @param createdAt when the event was written, by the database's clock
 */
public record OutboxMessage(String messageId, String destination, String partitionKey, String eventType,
                            Map<String, String> headers, String payload, Instant createdAt) {

  /** The header that carries {@link #messageId()} on every broker. */
  public static final String MESSAGE_ID_HEADER = "idem-message-id";
  /** The header that carries {@link #eventType()} on every broker. */
  public static final String EVENT_TYPE_HEADER = "idem-event-type";

  /**
   * Checks the required parts and copies the headers.
   *
   * @param messageId see the record's description
   * @param destination see the record's description
   * @param partitionKey see the record's description
   * @param eventType see the record's description
   * @param headers see the record's description
   * @param payload see the record's description
   * @param createdAt see the record's description
   */
  public OutboxMessage {
    Objects.requireNonNull(messageId, "messageId");
    Objects.requireNonNull(destination, "destination");
    Objects.requireNonNull(eventType, "eventType");
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(createdAt, "createdAt");
    headers = headers == null ? Map.of() : Map.copyOf(headers);
  }

  /** @return the payload's UTF-8 bytes, as brokers send them */
  public byte[] payloadBytes() {
    return payload.getBytes(StandardCharsets.UTF_8);
  }
}
