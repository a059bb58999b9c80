package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class PostgresConsumerContractTest extends ConsumerContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
