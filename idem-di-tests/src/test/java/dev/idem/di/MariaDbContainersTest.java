package dev.idem.di;

import dev.idem.testing.TestDatabase;

class MariaDbContainersTest extends ContainersContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
