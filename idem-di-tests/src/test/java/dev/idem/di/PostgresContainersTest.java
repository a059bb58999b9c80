package dev.idem.di;

import dev.idem.testing.TestDatabase;

class PostgresContainersTest extends ContainersContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
