package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class H2FaultContractTest extends FaultContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
