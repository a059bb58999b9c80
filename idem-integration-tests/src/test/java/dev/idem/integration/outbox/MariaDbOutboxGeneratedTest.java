package dev.idem.integration.outbox;

import dev.idem.testing.TestDatabase;

class MariaDbOutboxGeneratedTest extends OutboxGeneratedContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
