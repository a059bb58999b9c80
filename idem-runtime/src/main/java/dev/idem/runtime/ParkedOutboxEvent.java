package dev.idem.runtime;

import java.time.Instant;

/**
 * An outbox event no relay publishes any more ({@link IdemAdmin#parkedOutboxEvents}), until an operator requeues it
 * ({@link IdemAdmin#requeueOutboxEvent}).
 *
 * @param messageId the event's message id
 * @param destination where it was to go
 * @param partitionKey its partition key, or null
 * @param eventType its event type
 * @param createdAt when it was written, by the database's clock
 * @param attempts how many publications failed, the last one included
 * @param reason why it was parked: the publisher's reason, or why the row could not be read
 */
public record ParkedOutboxEvent(String messageId, String destination, String partitionKey, String eventType,
                                Instant createdAt, int attempts, String reason) {}
