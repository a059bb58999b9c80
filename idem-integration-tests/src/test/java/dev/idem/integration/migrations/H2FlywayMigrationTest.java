package dev.idem.integration.migrations;

import dev.idem.testing.TestDatabase;

class H2FlywayMigrationTest extends FlywayMigrationContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
