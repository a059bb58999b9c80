package dev.idem.integration.generated;

import dev.idem.testing.TestDatabase;

class PostgresGeneratedCommandsTest extends GeneratedCommandsContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
