package dev.idem.rabbitmq;

import com.rabbitmq.client.Delivery;
import dev.idem.runtime.OutboxMessage;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * One delivery as an {@link IdempotentRabbitConsumer} hands it to the handler.
 *
 * @param messageId the id to deduplicate by: the AMQP {@code message-id} property, else the
 *     {@value OutboxMessage#MESSAGE_ID_HEADER} header
 * @param group the consumer group: with the message id, the key of the handler's idempotent command
 * @param delivery the delivery as the client received it
 */
public record RabbitMessage(String messageId, String group, Delivery delivery) {

  /** @return the body's bytes */
  public byte[] body() {
    return delivery.getBody();
  }

  /** @return the body as UTF-8 text (the outbox's JSON) */
  public String bodyText() {
    return new String(delivery.getBody(), StandardCharsets.UTF_8);
  }

  /** @return the {@value OutboxMessage#EVENT_TYPE_HEADER} header, else the AMQP {@code type}, else null */
  public String eventType() {
    String header = header(OutboxMessage.EVENT_TYPE_HEADER);
    return header != null ? header : delivery.getProperties().getType();
  }

  /**
   * @param name a header's name
   * @return its value as text, or null if the delivery has no such header
   */
  public String header(String name) {
    Map<String, Object> headers = delivery.getProperties().getHeaders();
    Object value = headers == null ? null : headers.get(name);
    return value == null ? null : value.toString();
  }

  /** @return whether the broker flagged it as delivered before */
  public boolean redelivered() {
    return delivery.getEnvelope().isRedeliver();
  }

  static String messageIdOf(Delivery delivery) {
    String id = delivery.getProperties().getMessageId();
    if (id != null && !id.isEmpty()) {
      return id;
    }
    Map<String, Object> headers = delivery.getProperties().getHeaders();
    Object header = headers == null ? null : headers.get(OutboxMessage.MESSAGE_ID_HEADER);
    return header == null ? null : header.toString();
  }
}
