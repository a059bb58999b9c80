package dev.idem.jdbi;

import dev.idem.testing.TestDatabase;

class PostgresJdbiTest extends JdbiContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
