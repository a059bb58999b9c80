package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class H2JoinedTransactionContractTest extends JoinedTransactionContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
