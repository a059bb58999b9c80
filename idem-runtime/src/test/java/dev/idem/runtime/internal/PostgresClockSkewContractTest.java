package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class PostgresClockSkewContractTest extends ClockSkewContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
