package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class PostgresArchiveHorizonContractTest extends ArchiveHorizonContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
