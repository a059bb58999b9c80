package dev.idem.integration.migrations;

import dev.idem.testing.TestDatabase;

class MariaDbFlywayMigrationTest extends FlywayMigrationContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
