package dev.idem.examples.generated;

import dev.idem.testsupport.TestDatabase;

class PostgresGeneratedCommandsTest extends GeneratedCommandsContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
