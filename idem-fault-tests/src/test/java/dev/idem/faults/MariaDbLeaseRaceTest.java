package dev.idem.faults;

import dev.idem.testing.TestDatabase;

class MariaDbLeaseRaceTest extends LeaseRaceContract {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
