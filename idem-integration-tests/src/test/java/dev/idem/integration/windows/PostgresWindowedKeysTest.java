package dev.idem.integration.windows;

import dev.idem.testing.TestDatabase;

class PostgresWindowedKeysTest extends WindowedKeysContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
