package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class H2OutboxContractTest extends OutboxContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
