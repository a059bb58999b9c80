package dev.idem.runtime;

import dev.idem.testsupport.TestDatabase;

class PostgresClaimContractTest extends ClaimContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
