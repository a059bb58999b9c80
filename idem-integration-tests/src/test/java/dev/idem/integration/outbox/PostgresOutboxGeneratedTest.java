package dev.idem.integration.outbox;

import dev.idem.testing.TestDatabase;

class PostgresOutboxGeneratedTest extends OutboxGeneratedContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
