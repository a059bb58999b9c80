package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class PostgresOutcomeContractTest extends OutcomeContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
