package dev.idem.integration.windows;

import dev.idem.testing.TestDatabase;

class MariaDbWindowedKeysTest extends WindowedKeysContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
