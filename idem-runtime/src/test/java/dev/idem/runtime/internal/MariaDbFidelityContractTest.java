package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class MariaDbFidelityContractTest extends FidelityContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
