package dev.idem.faults;

import dev.idem.testing.TestDatabase;

class PostgresLeaseRaceTest extends LeaseRaceContract {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
