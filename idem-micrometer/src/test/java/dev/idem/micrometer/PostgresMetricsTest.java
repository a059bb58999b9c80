package dev.idem.micrometer;

import dev.idem.testing.TestDatabase;

class PostgresMetricsTest extends MetricsContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
