package dev.idem.jdbi;

import dev.idem.testing.TestDatabase;

class MariaDbJdbiTest extends JdbiContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
