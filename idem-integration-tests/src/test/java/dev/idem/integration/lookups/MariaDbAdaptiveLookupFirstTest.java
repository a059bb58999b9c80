package dev.idem.integration.lookups;

import dev.idem.testing.TestDatabase;

class MariaDbAdaptiveLookupFirstTest extends AdaptiveLookupFirstContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
