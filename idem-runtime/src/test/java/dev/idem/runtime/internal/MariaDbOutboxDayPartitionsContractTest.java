package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;
import java.util.List;

class MariaDbOutboxDayPartitionsContractTest extends OutboxDayPartitionsContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Override
  protected String partitionExistsSql(String partition) {
    return "SELECT count(*) FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = DATABASE()"
        + " AND TABLE_NAME = 'idem_outbox' AND PARTITION_NAME = '" + partition + "'";
  }

  @Override
  protected String partitionRows(String partition) {
    return "idem_outbox PARTITION (" + partition + ")";
  }

  /** A range partition covers everything from the one below it: today and the later days go, or tomorrow's holds today. */
  @Override
  protected List<String> removeTodaysPartitionSql(List<String> todayAndLater) {
    return List.of("ALTER TABLE idem_outbox DROP PARTITION " + String.join(", ", todayAndLater));
  }
}
