package dev.idem.integration.generated;

import dev.idem.testing.TestDatabase;

class H2GeneratedCommandsTest extends GeneratedCommandsContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
