package dev.idem.integration.jobs;

import dev.idem.testing.TestDatabase;

class MariaDbSingleFlightAcrossJvmsTest extends SingleFlightAcrossJvmsTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
