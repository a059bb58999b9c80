package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class PostgresPoolContractTest extends PoolContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
