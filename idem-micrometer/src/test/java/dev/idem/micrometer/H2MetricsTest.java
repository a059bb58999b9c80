package dev.idem.micrometer;

import dev.idem.testing.TestDatabase;

class H2MetricsTest extends MetricsContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
