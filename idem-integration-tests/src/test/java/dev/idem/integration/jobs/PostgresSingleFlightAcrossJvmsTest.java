package dev.idem.integration.jobs;

import dev.idem.testing.TestDatabase;

class PostgresSingleFlightAcrossJvmsTest extends SingleFlightAcrossJvmsTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
