package dev.idem.runtime;

import dev.idem.testsupport.TestDatabase;

class MariaDbCommandContractTest extends CommandContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
