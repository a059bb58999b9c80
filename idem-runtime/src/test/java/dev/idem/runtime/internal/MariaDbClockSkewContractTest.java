package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class MariaDbClockSkewContractTest extends ClockSkewContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
