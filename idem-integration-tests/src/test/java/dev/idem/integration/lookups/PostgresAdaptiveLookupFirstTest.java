package dev.idem.integration.lookups;

import dev.idem.testing.TestDatabase;

class PostgresAdaptiveLookupFirstTest extends AdaptiveLookupFirstContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
