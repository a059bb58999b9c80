package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.idem.runtime.Dialect;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.RecordLayout;
import dev.idem.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link DayPartitionsContractTest} on MariaDB: partitions by {@code RANGE COLUMNS(bucket)}, claims of arbitrary keys
 * under {@code GET_LOCK} with a locking probe, DROP / CONVERT PARTITION.
 */
class MariaDbDayPartitionsContractTest extends DayPartitionsContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Override
  protected String dropArchiveSql(String schema) {
    return "DROP DATABASE IF EXISTS " + schema;
  }

  @Override
  protected String dropPartitionSql(String table, String partition) {
    return "ALTER TABLE " + table + " DROP PARTITION " + partition;
  }

  /** A MAXVALUE bound is the catch-all of a range-partitioned table. */
  @Override
  protected String catchAllPartitionsSql(String table) {
    return "SELECT count(*) FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = DATABASE()"
        + " AND TABLE_NAME = '" + table + "' AND PARTITION_DESCRIPTION = 'MAXVALUE'";
  }

  @Override
  protected String partitionExistsSql(String table, String partition) {
    return "SELECT count(*) FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = DATABASE()"
        + " AND TABLE_NAME = '" + table + "' AND PARTITION_NAME = '" + partition + "'";
  }

  @Override
  protected void assertNoPartitionRefusal(SQLException cause) {
    assertEquals(SqlDialect.ER_NO_PARTITION_FOR_GIVEN_VALUE, cause.getErrorCode(), cause.toString());
  }

  /** The switch's {@code LOCK TABLES … READ} waits for a metadata lock, which the process list shows. */
  @Override
  protected String waitingForLocksOnSql(String table) {
    return "SELECT count(*) FROM information_schema.PROCESSLIST WHERE STATE = 'Waiting for table metadata lock'"
        + " AND INFO LIKE 'LOCK TABLES " + table + " READ%'";
  }

  @Override
  protected String partitionRows(String table, String partition) {
    return table + " PARTITION (" + partition + ")";
  }

  @Override
  protected String rowStatisticsSql(String table, String partition) {
    return "SELECT COALESCE(MAX(TABLE_ROWS), -1) FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = DATABASE()"
        + " AND TABLE_NAME = '" + table + "' AND PARTITION_NAME = '" + partition + "'";
  }

  /**
   * A switched runtime's batch read of the keys' records (what a batch looks at when its claim did not return them)
   * takes the latest record of each key from both tables.
   */
  @Test
  void aBatchReadAfterTheSwitchTakesTheLatestRecordOfBothTables() throws SQLException {
    database.execute("DROP TABLE IF EXISTS legacy_read", "DROP TABLE IF EXISTS switched_read");
    try (IdemRuntime oneTable = IdemRuntime.builder().dataSource(database.dataSource()).tableName("legacy_read")
        .clock(clock).databaseTime(false).build()) {
      oneTable.createSchema();
    }
    try (IdemRuntime switched = IdemRuntime.builder().dataSource(runtimeDataSource()).clock(clock)
        .databaseTime(false).layout(RecordLayout.DAY_PARTITIONS).tableName("switched_read")
        .switchingFrom("legacy_read").build()) {
      switched.createSchema();
    }
    int today = SqlDialect.dayBucket(clock.millis());
    database.execute(
        "INSERT INTO legacy_read (scope, idem_key, state, fingerprint, created_at, expires_at) VALUES"
            + " ('s', 'old', 'COMPLETED', 'f-old', 1, 100), ('s', 'both', 'COMPLETED', 'f-before', 1, 100)",
        "INSERT INTO switched_read (scope, idem_key, state, fingerprint, created_at, expires_at, bucket) VALUES"
            + " ('s', 'new', 'COMPLETED', 'f-new', 1, 200, " + today + "),"
            + " ('s', 'both', 'COMPLETED', 'f-after', 1, 200, " + today + ")");
    BatchStatements statements = SqlDialect.of(Dialect.MARIADB, RecordLayout.DAY_PARTITIONS, "legacy_read")
        .batchStatements("switched_read");
    Map<String, BatchStatements.StoredRecord> records;
    try (Connection connection = database.dataSource().getConnection()) {
      records = statements.read(connection, "s", List.of("both", "new", "nowhere", "old"));
    }
    assertEquals(Set.of("both", "new", "old"), records.keySet());
    assertEquals("f-old", records.get("old").fingerprint(), "read from the table switched from");
    assertEquals("f-new", records.get("new").fingerprint());
    assertEquals(new BatchStatements.StoredRecord("COMPLETED", "f-after", 200), records.get("both"),
        "the latest of the two");
    database.execute("DROP TABLE legacy_read", "DROP TABLE switched_read");
  }

  /**
   * A switched runtime's select of a key, a UNION of both tables, still takes its locking read of the partitioned
   * table: it waits for a competitor's uncommitted record of the key rather than missing it.
   */
  @Test
  void aSwitchedSelectStillWaitsForAnUncommittedRecordOfTheDays() throws SQLException {
    database.execute("DROP TABLE IF EXISTS legacy_lock", "DROP TABLE IF EXISTS switched_lock");
    try (IdemRuntime oneTable = IdemRuntime.builder().dataSource(database.dataSource()).tableName("legacy_lock")
        .clock(clock).databaseTime(false).build()) {
      oneTable.createSchema();
    }
    try (IdemRuntime switched = IdemRuntime.builder().dataSource(runtimeDataSource()).clock(clock)
        .databaseTime(false).layout(RecordLayout.DAY_PARTITIONS).tableName("switched_lock")
        .switchingFrom("legacy_lock").build()) {
      switched.createSchema();
    }
    String select = SqlDialect.of(Dialect.MARIADB, RecordLayout.DAY_PARTITIONS, "legacy_lock")
        .selectSql("switched_lock");
    try (Connection competitor = database.dataSource().getConnection();
        Connection reader = database.dataSource().getConnection()) {
      competitor.setAutoCommit(false);
      try (java.sql.Statement insert = competitor.createStatement()) {
        insert.executeUpdate("INSERT INTO switched_lock (scope, idem_key, state, fingerprint, created_at,"
            + " expires_at, bucket) VALUES ('s', 'k', 'PENDING', 'f', 1, 200, " + SqlDialect.dayBucket(clock.millis())
            + ")");
      }
      try (java.sql.Statement timeout = reader.createStatement()) {
        timeout.execute("SET SESSION innodb_lock_wait_timeout = 1");
      }
      try (java.sql.PreparedStatement read = reader.prepareStatement(select)) {
        read.setString(1, "s");
        read.setString(2, "k");
        SQLException waited = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class,
            () -> read.executeQuery().close());
        assertEquals(1205, waited.getErrorCode(), waited.toString()); // ER_LOCK_WAIT_TIMEOUT
      } finally {
        competitor.rollback();
        try (java.sql.Statement reset = reader.createStatement()) {
          reset.execute("SET SESSION innodb_lock_wait_timeout = DEFAULT");
        }
      }
    }
    database.execute("DROP TABLE legacy_lock", "DROP TABLE switched_lock");
  }
}
