package dev.idem.examples.generated;

import dev.idem.testsupport.TestDatabase;

class MariaDbGeneratedCommandsTest extends GeneratedCommandsContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
