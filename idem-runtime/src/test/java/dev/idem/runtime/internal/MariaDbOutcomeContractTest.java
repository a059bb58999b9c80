package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class MariaDbOutcomeContractTest extends OutcomeContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
