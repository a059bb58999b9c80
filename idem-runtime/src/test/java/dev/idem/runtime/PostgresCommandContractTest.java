package dev.idem.runtime;

import dev.idem.testsupport.TestDatabase;

class PostgresCommandContractTest extends CommandContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
