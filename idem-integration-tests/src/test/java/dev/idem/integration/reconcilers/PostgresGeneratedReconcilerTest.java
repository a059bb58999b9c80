package dev.idem.integration.reconcilers;

import dev.idem.testing.TestDatabase;

class PostgresGeneratedReconcilerTest extends GeneratedReconcilerContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
