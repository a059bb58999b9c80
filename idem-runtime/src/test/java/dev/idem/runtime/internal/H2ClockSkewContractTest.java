package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class H2ClockSkewContractTest extends ClockSkewContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
