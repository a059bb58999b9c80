package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class PostgresLockContractTest extends LockContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
