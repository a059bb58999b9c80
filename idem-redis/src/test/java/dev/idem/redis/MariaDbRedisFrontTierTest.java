package dev.idem.redis;

import dev.idem.testing.TestDatabase;

class MariaDbRedisFrontTierTest extends RedisFrontTierContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
