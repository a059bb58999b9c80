package dev.idem.integration.reconcilers;

import dev.idem.testing.TestDatabase;

class MariaDbGeneratedReconcilerTest extends GeneratedReconcilerContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
