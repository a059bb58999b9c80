package dev.idem.integration.lookups;

import dev.idem.testing.TestDatabase;

class H2LookupFirstTest extends LookupFirstContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
