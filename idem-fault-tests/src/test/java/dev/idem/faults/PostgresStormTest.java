package dev.idem.faults;

import dev.idem.testing.TestDatabase;

class PostgresStormTest extends StormContract {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
