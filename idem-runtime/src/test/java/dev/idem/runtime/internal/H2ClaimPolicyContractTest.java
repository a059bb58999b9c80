package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class H2ClaimPolicyContractTest extends ClaimPolicyContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
