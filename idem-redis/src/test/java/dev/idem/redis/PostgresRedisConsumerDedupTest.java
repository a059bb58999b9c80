package dev.idem.redis;

import dev.idem.testing.TestDatabase;

class PostgresRedisConsumerDedupTest extends RedisConsumerDedupContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
