package dev.idem.runtime;

import dev.idem.testsupport.TestDatabase;

class H2ClaimContractTest extends ClaimContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
