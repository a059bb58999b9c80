package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class PostgresJoinedTransactionContractTest extends JoinedTransactionContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
