package dev.idem.di;

import dev.idem.testsupport.TestDatabase;

class PostgresContainersTest extends ContainersContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
