package dev.idem.jpa;

import dev.idem.testing.TestDatabase;

class PostgresJpaTest extends JpaContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
