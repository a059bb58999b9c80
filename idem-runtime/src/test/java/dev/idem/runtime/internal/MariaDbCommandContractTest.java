package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class MariaDbCommandContractTest extends CommandContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
