package dev.idem.runtime;

import dev.idem.testsupport.TestDatabase;

class MariaDbCommandContractTest extends CommandContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
