package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class H2OutcomeContractTest extends OutcomeContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
