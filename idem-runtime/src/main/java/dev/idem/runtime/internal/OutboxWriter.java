package dev.idem.runtime.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.runtime.IdempotencyException;
import dev.idem.runtime.IdempotencyStoreException;
import dev.idem.runtime.OutboxTransactionRequiredException;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;

/**
 * Writes one outbox event into {@code idem_outbox} in the transaction in progress on the caller's thread: idem's own
 * (a {@code TRANSACTIONAL} command's body, {@code inTransaction} work) or the application's that the
 * {@code TransactionBinding} finds. Outside any transaction it writes nothing and throws
 * {@link OutboxTransactionRequiredException}: an event written in a transaction of its own would exist whether or
 * not the business change committed.
 */
final class OutboxWriter {

  private final TransactionManager transactions;
  private final SqlDialect dialect;
  private final ObjectMapper mapper;
  private final DatabaseClock clock;

  OutboxWriter(TransactionManager transactions, SqlDialect dialect, ObjectMapper mapper, DatabaseClock clock) {
    this.transactions = transactions;
    this.dialect = dialect;
    this.mapper = mapper;
    this.clock = clock;
  }

  String write(OutboxEventSpec spec, Object partitionKey, Map<String, String> headers, Object payload) {
    Transaction tx = transactions.current();
    boolean bound = false;
    if (tx == null) {
      tx = transactions.bindApplications();
      bound = tx != null;
    }
    if (tx == null) {
      throw new OutboxTransactionRequiredException(spec.method() + " writes an outbox event, which must be written in"
          + " the transaction of the change it announces (rule: no outbox event outside a transaction); nothing was"
          + " written. Call it inside a TRANSACTIONAL @IdempotentCommand's body, inside runtime.inTransaction(...),"
          + " or inside the application's transaction that the runtime's TransactionBinding finds"
          + " (Builder.joinTransactions)");
    }
    try {
      String key = partitionKey == null ? null : String.valueOf(partitionKey);
      if (key != null && key.length() > 255) {
        throw new IdempotencyException(spec.method() + ": the partition key is " + key.length() + " characters long;"
            + " idem_outbox.partition_key holds at most 255. Choose a shorter key property");
      }
      String headersJson = headers == null || headers.isEmpty() ? null : json(spec, headers, "headers");
      if (headers != null) {
        for (Map.Entry<String, String> header : headers.entrySet()) {
          if (header.getKey() == null || header.getValue() == null) {
            throw new IdempotencyException(spec.method() + ": header " + header.getKey() + " has a null name or"
                + " value; outbox headers are non-null strings");
          }
        }
      }
      String payloadJson = json(spec, payload, "payload");
      String id = MessageIds.next(clock.millis());
      if (tx.isApplications()) {
        tx.flush(); // the event follows the application's pending writes (JPA) in the statement order
      }
      try (PreparedStatement insert = tx.connection.prepareStatement(dialect.outboxInsertSql())) {
        insert.setString(1, id);
        insert.setString(2, spec.destination());
        insert.setString(3, key);
        insert.setInt(4, keyHash(key == null ? id : key));
        insert.setString(5, spec.eventType());
        insert.setString(6, headersJson);
        insert.setString(7, payloadJson);
        insert.executeUpdate();
      } catch (SQLException e) {
        if (SqlDialect.isMissingPartition(e)) {
          throw new IdempotencyStoreException("Writing the outbox event of " + spec.method() + " failed: "
              + SqlDialect.OUTBOX_TABLE + " has no day partition for today (" + e.getMessage() + "). Its days are"
              + " made ahead of time by createSchema(), IdemRuntime.premakePartitions(), the scheduled purge"
              + " (Builder.purgeEvery) and every outbox relay's purge (OutboxRelayOptions.withPurgeEvery): run"
              + " premakePartitions() now and keep one of them running on some node", e);
        }
        throw new IdempotencyStoreException("Writing the outbox event of " + spec.method() + " failed"
            + dialect.missingTableHint(e, SqlDialect.OUTBOX_TABLE), e);
      }
      return id;
    } finally {
      if (bound) {
        transactions.unbind();
      }
    }
  }

  /**
   * The hash that ordered relays partition by: {@link String#hashCode()} (its algorithm is part of the Java
   * specification, so every JVM and version agrees), made non-negative.
   */
  static int keyHash(String key) {
    return key.hashCode() & 0x7FFF_FFFF;
  }

  private String json(OutboxEventSpec spec, Object value, String what) {
    if (value == null) {
      throw new IdempotencyException(spec.method() + ": the event's " + what + " is null; an outbox event carries a"
          + " payload");
    }
    try {
      return mapper.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IdempotencyException(spec.method() + ": the event's " + what + " cannot be written as JSON: "
          + e.getOriginalMessage(), e);
    }
  }
}
