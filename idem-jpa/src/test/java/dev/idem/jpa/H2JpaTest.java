package dev.idem.jpa;

import dev.idem.testing.TestDatabase;

class H2JpaTest extends JpaContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
