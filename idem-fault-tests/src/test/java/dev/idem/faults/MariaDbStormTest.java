package dev.idem.faults;

import dev.idem.testing.TestDatabase;

class MariaDbStormTest extends StormContract {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
