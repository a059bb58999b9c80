package dev.idem.redis;

import dev.idem.testing.TestDatabase;

class MariaDbRedisConsumerDedupTest extends RedisConsumerDedupContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
