package dev.idem.integration.outbox;

import dev.idem.testing.TestDatabase;

class H2OutboxGeneratedTest extends OutboxGeneratedContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
