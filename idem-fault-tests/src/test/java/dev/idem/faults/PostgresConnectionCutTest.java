package dev.idem.faults;

import dev.idem.testing.TestDatabase;

class PostgresConnectionCutTest extends ConnectionCutContract {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
