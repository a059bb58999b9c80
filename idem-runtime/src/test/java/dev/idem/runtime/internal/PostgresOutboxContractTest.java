package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class PostgresOutboxContractTest extends OutboxContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
