package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class PostgresFidelityContractTest extends FidelityContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
