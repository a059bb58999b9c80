package dev.idem.nats;

import dev.idem.runtime.OutboxMessage;
import io.nats.client.Message;
import java.nio.charset.StandardCharsets;

/**
 * One JetStream message as an {@link IdempotentJetStreamConsumer} hands it to the handler.
 *
 * @param messageId the id to deduplicate by: the {@value OutboxMessage#MESSAGE_ID_HEADER} header, else
 *     {@code Nats-Msg-Id}, else {@code stream:sequence}
 * @param group the consumer group (by default the durable consumer's name): with the message id, the key of the
 *     handler's idempotent command
 * @param message the message as the client received it (do not ack it: the consumer does)
 */
public record JetStreamMessage(String messageId, String group, Message message) {

  /** @return the payload's bytes */
  public byte[] data() {
    return message.getData();
  }

  /** @return the payload as UTF-8 text (the outbox's JSON) */
  public String dataText() {
    return new String(message.getData(), StandardCharsets.UTF_8);
  }

  /** @return the {@value OutboxMessage#EVENT_TYPE_HEADER} header, or null */
  public String eventType() {
    return header(OutboxMessage.EVENT_TYPE_HEADER);
  }

  /**
   * @param name a header's name
   * @return its last value, or null
   */
  public String header(String name) {
    return header(message, name);
  }

  /** @return how many times JetStream delivered it (1 the first time) */
  public long deliveredCount() {
    return message.metaData().deliveredCount();
  }

  static String header(Message message, String name) {
    return message.hasHeaders() ? message.getHeaders().getLast(name) : null;
  }

  static String messageIdOf(Message message) {
    String id = header(message, OutboxMessage.MESSAGE_ID_HEADER);
    if (id == null || id.isEmpty()) {
      id = header(message, "Nats-Msg-Id");
    }
    if (id == null || id.isEmpty()) {
      id = message.metaData().getStream() + ":" + message.metaData().streamSequence();
    }
    return id;
  }
}
