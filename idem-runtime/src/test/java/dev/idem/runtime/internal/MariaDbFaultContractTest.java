package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class MariaDbFaultContractTest extends FaultContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
