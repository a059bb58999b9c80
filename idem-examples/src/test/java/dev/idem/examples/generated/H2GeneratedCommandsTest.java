package dev.idem.examples.generated;

import dev.idem.testsupport.TestDatabase;

class H2GeneratedCommandsTest extends GeneratedCommandsContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
