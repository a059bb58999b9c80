package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class H2ConsumerContractTest extends ConsumerContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
