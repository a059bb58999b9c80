package dev.idem.integration.migrations;

import dev.idem.testing.TestDatabase;

class PostgresFlywayMigrationTest extends FlywayMigrationContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
