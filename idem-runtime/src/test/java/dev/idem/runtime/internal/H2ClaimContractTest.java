package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class H2ClaimContractTest extends ClaimContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
