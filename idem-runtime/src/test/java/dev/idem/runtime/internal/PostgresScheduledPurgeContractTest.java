package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class PostgresScheduledPurgeContractTest extends ScheduledPurgeContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
