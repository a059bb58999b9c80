package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class MariaDbArchiveHorizonContractTest extends ArchiveHorizonContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
