package dev.idem.integration.transitions;

import dev.idem.testing.TestDatabase;

class PostgresTransitionContractTest extends TransitionContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
