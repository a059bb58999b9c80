package dev.idem.runtime.internal;

import dev.idem.runtime.IdempotencyStoreException;
import dev.idem.runtime.ParkedOutboxEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The outbox's operator calls ({@code IdemAdmin}: parked events, requeue, purge of sent events) and the relay's
 * purge. Each runs in auto-commit mode on a connection of its own.
 */
final class OutboxOperations {

  private final DataSource dataSource;
  private final SqlDialect dialect;
  /** The outbox's day partitions (DAY_PARTITIONS layout), or null: its sent rows then go by rows. */
  private final PartitionMaintenance partitions;

  OutboxOperations(DataSource dataSource, SqlDialect dialect, PartitionMaintenance partitions) {
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.partitions = partitions;
  }

  List<ParkedOutboxEvent> parked(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive: " + limit);
    }
    try (Connection connection = dataSource.getConnection();
        PreparedStatement select = connection.prepareStatement(dialect.outboxParkedSql())) {
      select.setInt(1, limit);
      List<ParkedOutboxEvent> parked = new ArrayList<>();
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          parked.add(new ParkedOutboxEvent(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
              Instant.ofEpochMilli(rs.getLong(5)), rs.getInt(6), rs.getString(7)));
        }
      }
      return parked;
    } catch (SQLException e) {
      throw failed("Reading the parked outbox events", e);
    }
  }

  boolean requeue(String messageId) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement update = connection.prepareStatement(dialect.outboxRequeueSql())) {
      update.setString(1, messageId);
      return update.executeUpdate() == 1;
    } catch (SQLException e) {
      throw failed("Requeueing the outbox event " + messageId, e);
    }
  }

  /**
   * Deletes sent events past their retention in batches until none is left; the number deleted. A day-partitioned
   * outbox instead loses whole past days that hold only such events (and gets its coming days made): no row is
   * deleted one by one, and a day holding a PENDING or PARKED event stays.
   */
  long purgeSent(int batchSize) {
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize must be positive: " + batchSize);
    }
    if (partitions != null && partitions.isPartitioned()) {
      return partitions.maintain(0);
    }
    long total = 0;
    try (Connection connection = dataSource.getConnection();
        PreparedStatement delete = connection.prepareStatement(dialect.outboxPurgeSql())) {
      if (!connection.getAutoCommit()) {
        connection.setAutoCommit(true);
      }
      while (true) {
        delete.setInt(1, batchSize);
        int deleted = delete.executeUpdate();
        total += deleted;
        if (deleted < batchSize) {
          return total;
        }
      }
    } catch (SQLException e) {
      throw failed("Purging sent outbox events (" + total + " deleted before the failure)", e);
    }
  }

  private IdempotencyStoreException failed(String what, SQLException e) {
    return new IdempotencyStoreException(what + " failed" + dialect.missingTableHint(e, SqlDialect.OUTBOX_TABLE), e);
  }
}
