package dev.idem.runtime;

import dev.idem.testsupport.TestDatabase;

class H2ClaimContractTest extends ClaimContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.H2;
  }
}
