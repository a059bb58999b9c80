package dev.idem.micrometer;

import dev.idem.testsupport.TestDatabase;

class H2MetricsTest extends MetricsContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
