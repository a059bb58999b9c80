package dev.idem.integration.windows;

import dev.idem.testing.TestDatabase;

class H2WindowedKeysTest extends WindowedKeysContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
