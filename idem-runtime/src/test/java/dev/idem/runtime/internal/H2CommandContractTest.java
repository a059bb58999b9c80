package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class H2CommandContractTest extends CommandContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
