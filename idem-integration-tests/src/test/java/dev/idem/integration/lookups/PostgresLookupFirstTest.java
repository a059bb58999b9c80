package dev.idem.integration.lookups;

import dev.idem.testing.TestDatabase;

class PostgresLookupFirstTest extends LookupFirstContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
