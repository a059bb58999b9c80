package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;
import java.util.List;

class PostgresOutboxDayPartitionsContractTest extends OutboxDayPartitionsContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }

  @Override
  protected String partitionExistsSql(String partition) {
    return "SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p"
        + " ON p.oid = i.inhparent WHERE p.relname = 'idem_outbox' AND c.relname = '" + partition + "'"
        + " AND p.relnamespace = to_regnamespace(current_schema())::oid";
  }

  @Override
  protected String partitionRows(String partition) {
    return partition;
  }

  /** A day is a table of its own: today's alone goes. */
  @Override
  protected List<String> removeTodaysPartitionSql(List<String> todayAndLater) {
    return List.of("DROP TABLE " + todayAndLater.get(0));
  }
}
