package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class PostgresClaimContractTest extends ClaimContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
