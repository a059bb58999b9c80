package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class MariaDbLockContractTest extends LockContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
