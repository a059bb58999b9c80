package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class H2LockContractTest extends LockContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
