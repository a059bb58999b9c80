package dev.idem.integration.reconcilers;

import dev.idem.testing.TestDatabase;

class H2GeneratedReconcilerTest extends GeneratedReconcilerContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
