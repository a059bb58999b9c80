package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.idem.testing.TestDatabase;
import java.sql.SQLException;

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
}
