package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class MariaDbAdminContractTest extends AdminContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
