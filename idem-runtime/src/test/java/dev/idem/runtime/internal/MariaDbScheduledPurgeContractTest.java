package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class MariaDbScheduledPurgeContractTest extends ScheduledPurgeContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
