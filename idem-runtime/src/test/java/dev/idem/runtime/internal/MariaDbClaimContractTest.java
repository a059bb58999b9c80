package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class MariaDbClaimContractTest extends ClaimContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
