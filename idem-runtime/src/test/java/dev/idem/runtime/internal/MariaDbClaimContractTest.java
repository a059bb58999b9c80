package dev.idem.runtime.internal;

import dev.idem.testsupport.TestDatabase;

class MariaDbClaimContractTest extends ClaimContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
