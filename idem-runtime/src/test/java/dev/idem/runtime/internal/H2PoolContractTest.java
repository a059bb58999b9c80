package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class H2PoolContractTest extends PoolContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
