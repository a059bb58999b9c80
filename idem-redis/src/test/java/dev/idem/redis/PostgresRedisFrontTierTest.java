package dev.idem.redis;

import dev.idem.testing.TestDatabase;

class PostgresRedisFrontTierTest extends RedisFrontTierContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
