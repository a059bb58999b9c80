package dev.idem.faults;

import dev.idem.testing.TestDatabase;

class MariaDbConnectionCutTest extends ConnectionCutContract {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
