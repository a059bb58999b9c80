package dev.idem.examples.transitions;

import dev.idem.testsupport.TestDatabase;

class H2TransitionContractTest extends TransitionContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.H2;
  }
}
