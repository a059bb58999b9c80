package dev.idem.integration.generated;

import dev.idem.testing.TestDatabase;

class MariaDbGeneratedCommandsTest extends GeneratedCommandsContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
