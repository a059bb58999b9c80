package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class PostgresClaimPolicyContractTest extends ClaimPolicyContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
