package dev.idem.runtime.internal;

import dev.idem.testsupport.TestDatabase;

class PostgresFidelityContractTest extends FidelityContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
