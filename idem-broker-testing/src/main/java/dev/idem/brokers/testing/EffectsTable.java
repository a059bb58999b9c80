package dev.idem.brokers.testing;

import dev.idem.runtime.IdemRuntime;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The business effect of a consumed event: one row of the {@code effects} table, written in the generated command's
 * transaction, so that the counts tell how often each event took effect (once, whatever the broker redelivered).
 */
public final class EffectsTable implements AppliedEvents {

  private final IdemRuntime runtime;

  /**
   * Creates the {@code effects} table on the runtime's database.
   *
   * @param runtime the runtime whose transaction the effects join
   */
  public EffectsTable(IdemRuntime runtime) {
    this.runtime = runtime;
    runtime.inTransaction(connection -> {
      try (Statement statement = connection.createStatement()) {
        statement.execute("CREATE TABLE effects (group_name VARCHAR(100), message_id VARCHAR(100), body VARCHAR(1000))");
      }
      return null;
    });
  }

  @Override
  public void apply(Event event, String group) {
    applyAll(List.of(event), group);
  }

  @Override
  public void applyAll(List<Event> batch, String group) {
    try (PreparedStatement insert = runtime.currentConnection()
        .prepareStatement("INSERT INTO effects (group_name, message_id, body) VALUES (?, ?, ?)")) {
      for (Event event : batch) {
        insert.setString(1, group);
        insert.setString(2, event.messageId());
        insert.setString(3, event.body());
        insert.addBatch();
      }
      insert.executeBatch();
    } catch (SQLException e) {
      throw new IllegalStateException("could not record the effects", e);
    }
  }

  private long count(String sql, String group) {
    return runtime.inTransaction(connection -> {
      try (PreparedStatement statement = connection.prepareStatement(sql)) {
        statement.setString(1, group);
        try (ResultSet rows = statement.executeQuery()) {
          rows.next();
          return rows.getLong(1);
        }
      }
    });
  }

  /**
   * @param group a consumer group
   * @return how many effects the group's handler wrote
   */
  public long effects(String group) {
    return count("SELECT COUNT(*) FROM effects WHERE group_name = ?", group);
  }

  /**
   * @param group a consumer group
   * @return how many distinct message ids took effect for the group
   */
  public long distinctMessages(String group) {
    return count("SELECT COUNT(DISTINCT message_id) FROM effects WHERE group_name = ?", group);
  }

}
