package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.idem.testing.TestDatabase;
import java.sql.SQLException;

class PostgresDayPartitionsContractTest extends DayPartitionsContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }

  @Override
  protected String dropArchiveSql(String schema) {
    return "DROP SCHEMA IF EXISTS " + schema + " CASCADE";
  }

  @Override
  protected String dropPartitionSql(String table, String partition) {
    return "DROP TABLE " + partition;
  }

  @Override
  protected String catchAllPartitionsSql(String table) {
    return "SELECT count(*) FROM pg_partitioned_table t JOIN pg_class c ON c.oid = t.partrelid"
        + " WHERE c.relname = '" + table + "' AND c.relnamespace = to_regnamespace(current_schema())::oid"
        + " AND t.partdefid <> 0";
  }

  @Override
  protected String partitionExistsSql(String table, String partition) {
    return "SELECT count(*) FROM pg_class WHERE relname = '" + partition + "'";
  }

  @Override
  protected void assertNoPartitionRefusal(SQLException cause) {
    assertEquals("23514", cause.getSQLState());
  }

  @Override
  protected String waitingForLocksOnSql(String table) {
    return "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = '" + table
        + "' AND NOT l.granted";
  }

  @Override
  protected String partitionRows(String table, String partition) {
    return partition;
  }

  @Override
  protected String rowStatisticsSql(String table, String partition) {
    return "SELECT coalesce(max(n_live_tup), -1) FROM pg_stat_user_tables WHERE relid = to_regclass('" + partition
        + "')";
  }
}
