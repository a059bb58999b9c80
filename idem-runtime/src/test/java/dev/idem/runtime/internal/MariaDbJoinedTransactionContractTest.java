package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class MariaDbJoinedTransactionContractTest extends JoinedTransactionContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
