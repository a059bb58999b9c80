package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class PostgresCommandContractTest extends CommandContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
