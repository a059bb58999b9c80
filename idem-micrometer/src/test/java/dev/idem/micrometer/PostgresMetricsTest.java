package dev.idem.micrometer;

import dev.idem.testsupport.TestDatabase;

class PostgresMetricsTest extends MetricsContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
