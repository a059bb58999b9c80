package dev.idem.runtime.internal;

import dev.idem.testsupport.TestDatabase;

class PostgresCommandContractTest extends CommandContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
