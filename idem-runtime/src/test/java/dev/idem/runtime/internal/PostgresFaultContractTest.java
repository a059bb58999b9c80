package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class PostgresFaultContractTest extends FaultContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
