package dev.idem.jpa;

import dev.idem.testing.TestDatabase;

class MariaDbJpaTest extends JpaContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
