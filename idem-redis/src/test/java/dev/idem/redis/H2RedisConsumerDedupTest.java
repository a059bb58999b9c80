package dev.idem.redis;

import dev.idem.testing.TestDatabase;

class H2RedisConsumerDedupTest extends RedisConsumerDedupContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
