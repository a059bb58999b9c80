package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class MariaDbClaimPolicyContractTest extends ClaimPolicyContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
