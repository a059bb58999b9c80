package dev.idem.integration.lookups;

import dev.idem.testing.TestDatabase;

class MariaDbLookupFirstTest extends LookupFirstContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
