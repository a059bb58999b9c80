package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class H2FidelityContractTest extends FidelityContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
