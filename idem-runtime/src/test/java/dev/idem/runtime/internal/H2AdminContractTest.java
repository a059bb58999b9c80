package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class H2AdminContractTest extends AdminContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
