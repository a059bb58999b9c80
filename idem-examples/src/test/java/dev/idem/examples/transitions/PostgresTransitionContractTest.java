package dev.idem.examples.transitions;

import dev.idem.testsupport.TestDatabase;

class PostgresTransitionContractTest extends TransitionContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
