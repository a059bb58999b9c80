package dev.idem.micrometer;

import dev.idem.testing.TestDatabase;

class MariaDbMetricsTest extends MetricsContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
