package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class PostgresDayPartitionsContractTest extends DayPartitionsContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
