package dev.idem.integration.transitions;

import dev.idem.testing.TestDatabase;

class MariaDbTransitionContractTest extends TransitionContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
