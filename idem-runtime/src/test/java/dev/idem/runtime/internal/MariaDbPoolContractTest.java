package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class MariaDbPoolContractTest extends PoolContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
