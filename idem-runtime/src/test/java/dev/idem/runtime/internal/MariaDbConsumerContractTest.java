package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class MariaDbConsumerContractTest extends ConsumerContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
