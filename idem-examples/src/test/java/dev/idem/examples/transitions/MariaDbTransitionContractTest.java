package dev.idem.examples.transitions;

import dev.idem.testsupport.TestDatabase;

class MariaDbTransitionContractTest extends TransitionContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
