package dev.idem.integration.lookups;

import dev.idem.testing.TestDatabase;

class H2AdaptiveLookupFirstTest extends AdaptiveLookupFirstContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
