package dev.idem.redis;

import dev.idem.testing.TestDatabase;

class H2RedisFrontTierTest extends RedisFrontTierContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
