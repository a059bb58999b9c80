package dev.idem.kafka;

import dev.idem.runtime.OutboxMessage;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * One record as an {@link IdempotentKafkaConsumer} hands it to the handler.
 *
 * @param messageId the id to deduplicate by: the {@value OutboxMessage#MESSAGE_ID_HEADER} header, else
 *     {@code topic-partition@offset} (unique for the record, but a record published twice gets two)
 * @param group the consumer group ({@code group.id}): with the message id, the key of the handler's idempotent
 *     command
 * @param record the record as the client received it
 */
public record KafkaMessage(String messageId, String group, ConsumerRecord<byte[], byte[]> record) {

  /** @return the value's bytes (null for a tombstone) */
  public byte[] value() {
    return record.value();
  }

  /** @return the value as UTF-8 text (the outbox's JSON), or null for a tombstone */
  public String valueText() {
    return record.value() == null ? null : new String(record.value(), StandardCharsets.UTF_8);
  }

  /** @return the key as UTF-8 text (the outbox's partition key), or null */
  public String key() {
    return record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
  }

  /** @return the {@value OutboxMessage#EVENT_TYPE_HEADER} header, or null */
  public String eventType() {
    return header(OutboxMessage.EVENT_TYPE_HEADER);
  }

  /**
   * @param name a header's name
   * @return the last value of that header as UTF-8 text, or null
   */
  public String header(String name) {
    return header(record, name);
  }

  static String header(ConsumerRecord<byte[], byte[]> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
  }

  static String messageIdOf(ConsumerRecord<byte[], byte[]> record) {
    String id = header(record, OutboxMessage.MESSAGE_ID_HEADER);
    return id != null && !id.isEmpty() ? id : record.topic() + "-" + record.partition() + "@" + record.offset();
  }
}
