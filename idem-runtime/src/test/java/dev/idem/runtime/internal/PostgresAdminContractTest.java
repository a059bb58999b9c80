package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class PostgresAdminContractTest extends AdminContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
