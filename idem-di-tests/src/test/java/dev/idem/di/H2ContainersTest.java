package dev.idem.di;

import dev.idem.testing.TestDatabase;

class H2ContainersTest extends ContainersContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
