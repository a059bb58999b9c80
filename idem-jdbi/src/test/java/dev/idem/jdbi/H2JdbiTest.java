package dev.idem.jdbi;

import dev.idem.testing.TestDatabase;

class H2JdbiTest extends JdbiContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
