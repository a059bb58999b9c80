package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class MariaDbOutboxContractTest extends OutboxContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
