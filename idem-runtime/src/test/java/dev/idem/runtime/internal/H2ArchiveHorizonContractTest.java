package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class H2ArchiveHorizonContractTest extends ArchiveHorizonContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
