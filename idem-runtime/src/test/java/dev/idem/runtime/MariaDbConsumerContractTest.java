package dev.idem.runtime;

import dev.idem.testsupport.TestDatabase;

class MariaDbConsumerContractTest extends ConsumerContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
