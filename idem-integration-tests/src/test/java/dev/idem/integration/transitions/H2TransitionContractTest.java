package dev.idem.integration.transitions;

import dev.idem.testing.TestDatabase;

class H2TransitionContractTest extends TransitionContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.H2;
  }
}
